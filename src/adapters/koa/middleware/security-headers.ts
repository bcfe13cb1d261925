export interface SecurityHeaderOptions {
  /** HSTS only where the app is served over https for good: production. */
  strictTransportSecurity: boolean;
  /** Origins a form may submit to, or redirect to after submitting (RP-initiated logout at the provider). */
  formActionOrigins: readonly string[];
}

/**
 * The headers every response carries, built once. The CSP allows no inline script and
 * nothing from another origin: every page works with the files in public/ alone.
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
    ['Content-Security-Policy', csp],
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'DENY'],
    ['Referrer-Policy', 'strict-origin-when-cross-origin'],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['Permissions-Policy', 'camera=(), microphone=(), geolocation=()'],
  ];
  if (options.strictTransportSecurity)
    headers.push(['Strict-Transport-Security', 'max-age=31536000; includeSubDomains']);
  return headers;
}
