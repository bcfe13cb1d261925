/** Node's deprecation of `url.parse()`, a run-time warning from Node 24 on. */
const URL_PARSE_DEPRECATION = 'DEP0169';

/**
 * samlify 2.13 reads whether the identity provider's HTTP-Redirect endpoint has a query
 * with the legacy `url.parse()`, which Node 24 deprecates at run time: one DeprecationWarning
 * on stderr at the first SAML sign-in of every process, about a call Gatehouse neither
 * makes nor can change (the endpoint itself comes from metadata Gatehouse has checked with
 * the WHATWG URL parser). The process entry point drops that one deprecation code; every
 * other warning is printed as before.
 */
export function dropUrlParseDeprecation(): void {
  const emit = process.emitWarning.bind(process);
  process.emitWarning = function emitWarning(warning: string | Error, ...rest: unknown[]): void {
    const [typeOrOptions, code] = rest;
    const warningCode =
      typeof typeOrOptions === 'object' && typeOrOptions !== null && 'code' in typeOrOptions
        ? (typeOrOptions as { code?: unknown }).code
        : code;
    if (warningCode === URL_PARSE_DEPRECATION) return;
    (emit as (...args: unknown[]) => void)(warning, ...rest);
  } as typeof process.emitWarning;
}
