import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import type { ObserveRequest } from '../outbound-requests.js';
import { metadataRefusal } from './saml-refusals.js';

/**
 * Fetches a metadata document: one GET, no redirect followed (the configured URL is the
 * one trusted), the whole exchange, body included, within `timeoutMs`, and at most
 * `maxBytes` (`MetadataMaxBytes`) read; `observe` (telemetry) sees the request when on. Failures are `idp.timeout`, `idp.unreachable` or
 * `idp.metadata_invalid`, never the library's error (which may quote the URL). `fetchThrough`
 * is the adapter's (the address-guarded fetch for a connection an organization declared).
 */
export async function fetchMetadata(
  url: string,
  timeoutMs: number,
  maxBytes: number,
  observe?: ObserveRequest,
  fetchThrough: typeof fetch = fetch,
): Promise<string> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const send = (headers?: Record<string, string>) =>
    fetchThrough(url, {
      redirect: 'error',
      signal: deadline,
      headers: { ...headers, accept: 'application/samlmetadata+xml, application/xml, text/xml' },
    });
  try {
    const response = await (observe ? observe('metadata', new URL(url), send) : send());
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new GatehouseError(
        'idp.unreachable',
        `The identity provider's metadata could not be fetched (HTTP ${response.status}).`,
        { safe: true },
      );
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw tooLarge(maxBytes);
    }
    return await readBounded(response, maxBytes);
  } catch (error) {
    if (isGatehouseError(error)) throw error;
    if (deadline.aborted) {
      throw new GatehouseError('idp.timeout', "The identity provider's metadata did not arrive in time.", {
        safe: true,
      });
    }
    throw new GatehouseError('idp.unreachable', "The identity provider's metadata could not be fetched.", {
      safe: true,
    });
  }
}

function tooLarge(maxBytes: number) {
  return metadataRefusal(`It is larger than MetadataMaxBytes (${maxBytes} bytes).`);
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); reader && read && !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(read.value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw metadataRefusal('It is not UTF-8 text.');
  }
}
