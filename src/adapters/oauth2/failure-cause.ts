/**
 * Why a request to a provider failed, in a few words an operator can act on: `ECONNREFUSED`,
 * `ENOTFOUND`, `timed out`, `TLS CERT_HAS_EXPIRED`, `HTTP 404`, `bad port` (fetch refuses
 * ports such as 1 or 9 outright). Built from error names, codes, HTTP statuses and the
 * network layer's own short messages only: never a response body, a URL's query, a code
 * or a token, which openid-client keeps elsewhere on the same errors.
 */
export function failureCause(err: unknown): string {
  const chain = chainOf(err);
  const status = chain.map(httpStatusOf).find((value) => value !== undefined);
  if (status !== undefined) return `HTTP ${status}`;
  for (const link of chain) {
    if (!(link instanceof Error)) continue;
    const code = codeOf(link);
    if (link.name === 'TimeoutError' || link.name === 'AbortError' || /TIMEOUT|ETIMEDOUT/.test(code ?? '')) {
      return 'timed out';
    }
    if (code !== undefined && /^(ERR_SSL|ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code))
      return `TLS ${code}`;
  }
  const networkCode = chain
    .map((link) => (link instanceof Error ? codeOf(link) : undefined))
    .find((code) => code?.startsWith('E') || code?.startsWith('UND_ERR'));
  if (networkCode !== undefined) return networkCode;
  // undici's `fetch failed` wraps the network layer's reason; without a code it is a short sentence ("bad port").
  const fetchFailed = chain.findIndex((link) => link instanceof TypeError && link.message === 'fetch failed');
  const reason = fetchFailed >= 0 ? chain[fetchFailed + 1] : undefined;
  if (reason instanceof Error && /^[\w .:-]{1,80}$/.test(reason.message)) return reason.message;
  const head = chain[0];
  return head instanceof Error ? (codeOf(head) ?? head.name) : 'unknown';
}

function chainOf(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = err;
  while (chain.length < 6 && current !== undefined && current !== null) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/** openid-client's ResponseBodyError carries `status`; an unexpected status keeps the Response as the cause. */
function httpStatusOf(link: unknown): number | undefined {
  if (link instanceof Response) return link.status;
  if (link instanceof Error && 'status' in link && typeof link.status === 'number') return link.status;
  return undefined;
}

function codeOf(error: Error): string | undefined {
  return 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
