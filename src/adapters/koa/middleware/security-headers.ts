export interface SecurityHeaderOptions {
  /** HSTS only where the app is served over https for good: production. */
  strictTransportSecurity: boolean;
  /** Origins a form may submit to, or redirect to after submitting (RP-initiated logout at the provider). */
  formActionOrigins: readonly string[];
}

/**
 * The headers every response carries, built once. The CSP allows no inline script and
 * nothing from another origin: every page works with the files in public/ alone.
 * Names are written in lower case (HTTP/1.1 names are case-insensitive, HTTP/2 requires
 * lower case): Node keys its header table by the lower-cased name, and a name already in
 * lower case is the same constant string every request, where a mixed-case one becomes a
 * new string to look up in V8's string table eight times a request (docs/performance.md).
 */
export function securityHeaders(options: SecurityHeaderOptions): ReadonlyArray<readonly [string, string]> {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    `form-action ${["'self'", ...options.formActionOrigins].join(' ')}`,
  ].join('; ');
  const headers: Array<[string, string]> = [
    ['content-security-policy', csp],
    ['x-content-type-options', 'nosniff'],
    ['x-frame-options', 'DENY'],
    ['referrer-policy', 'strict-origin-when-cross-origin'],
    ['cross-origin-opener-policy', 'same-origin'],
    ['cross-origin-resource-policy', 'same-origin'],
    ['permissions-policy', 'camera=(), microphone=(), geolocation=()'],
  ];
  if (options.strictTransportSecurity)
    headers.push(['strict-transport-security', 'max-age=31536000; includeSubDomains']);
  return headers;
}
