/**
 * The most a vendor API answer may hold. A user profile or a list of emails is a few
 * kilobytes; a larger body is not read into memory.
 */
export const MAX_RESOURCE_BYTES = 256 * 1024;

/**
 * A vendor API answered, but not with what was asked for: an error status, a body that is
 * not JSON, or one too large. `body` is the parsed error body when there is one, for the
 * vendor's own diagnostics (never logged as a whole).
 */
export class ResourceAnswerError extends Error {
  constructor(
    readonly status: number,
    problem: string,
    readonly body?: unknown,
  ) {
    super(`The vendor API answered ${status}: ${problem}.`);
    this.name = 'ResourceAnswerError';
  }
}

/** The JSON of a successful (2xx) answer, read up to MAX_RESOURCE_BYTES; anything else throws ResourceAnswerError. */
export async function readJsonResource(response: Response): Promise<unknown> {
  const text = await readBounded(response, MAX_RESOURCE_BYTES);
  if (text === undefined) throw new ResourceAnswerError(response.status, 'the body is too large');
  const json = isJsonMediaType(response.headers.get('content-type')) ? parseJson(text) : undefined;
  if (!response.ok) throw new ResourceAnswerError(response.status, 'an error status', json?.value);
  if (!json) throw new ResourceAnswerError(response.status, 'the body is not JSON');
  return json.value;
}

/** The JSON body of an error answer, for the vendor's diagnostics; undefined when it has none (never throws). */
export async function errorBodyOf(response: Response): Promise<unknown> {
  try {
    return await readJsonResource(response);
  } catch (err) {
    return err instanceof ResourceAnswerError ? err.body : undefined;
  }
}

/** `application/json`, or a `+json` type, whatever its parameters (Graph adds `odata.metadata=...`). */
function isJsonMediaType(contentType: string | null): boolean {
  return /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType ?? '');
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return { value };
  } catch {
    return undefined;
  }
}

/** The body as text, or undefined once it exceeds `maxBytes` (the rest is not read). */
async function readBounded(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
