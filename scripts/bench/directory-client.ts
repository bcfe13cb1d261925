import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** Requests come through the trusted proxy over https, as a directory's would in the production posture. */
const BEHIND_PROXY = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };
const SCIM_TYPE = 'application/scim+json';

export interface Answer {
  status: number;
  body: string;
  /** From sending the request to the end of the answer. */
  ms: number;
}

/**
 * A directory's SCIM client: `Authorization: Bearer <token>` on every request to the
 * organization's base URL, over at most `sockets` kept-alive connections (as many requests
 * in flight as the caller starts, up to that).
 */
export class ScimClient {
  readonly #agent: Agent;
  #requests = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    sockets: number,
  ) {
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  /** Requests sent so far. */
  get requests(): number {
    return this.#requests;
  }

  send(method: string, path: string, body?: unknown): Promise<Answer> {
    this.#requests += 1;
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      ...BEHIND_PROXY,
      authorization: `Bearer ${this.token}`,
      accept: SCIM_TYPE,
      ...(text === undefined ? {} : { 'content-type': SCIM_TYPE }),
    };
    return exchange(`${this.baseUrl}${path}`, method, headers, this.#agent, text);
  }

  /** Sends and checks the status: a bench of refusals measures nothing. */
  async expect(status: number, method: string, path: string, body?: unknown): Promise<Answer> {
    const answer = await this.send(method, path, body);
    if (answer.status !== status)
      throw new Error(
        `${method} ${path.split('?')[0]} answered ${answer.status}, not ${status}: ${answer.body.slice(0, 300)}`,
      );
    return answer;
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** `POST /api/admin/organizations/{organization}/scim-tokens` with an API key: the base URL and the token. */
export async function newScimToken(
  instanceUrl: string,
  apiKey: string,
  organization: string,
): Promise<{ baseUrl: string; token: string }> {
  const agent = new Agent({ keepAlive: false });
  const answer = await exchange(
    `${instanceUrl}/api/admin/organizations/${encodeURIComponent(organization)}/scim-tokens`,
    'POST',
    { ...BEHIND_PROXY, authorization: `Bearer ${apiKey}` },
    agent,
  );
  if (answer.status !== 201) throw new Error(`making a SCIM token answered ${answer.status}: ${answer.body}`);
  const made = JSON.parse(answer.body) as { token?: unknown };
  if (typeof made.token !== 'string') throw new Error('the SCIM token answer holds no token');
  // The answer's baseUrl is the public origin's (behind the proxy); requests go to the instance itself.
  return { baseUrl: `${instanceUrl}/scim/v2/${encodeURIComponent(organization)}`, token: made.token };
}

/** A SCIM filter as a query parameter: `?filter=userName%20eq%20%22...%22`. */
export function filterQuery(filter: string): string {
  return `filter=${encodeURIComponent(filter)}`;
}

function exchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  agent: Agent,
  body?: string,
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
