import type { Environment } from './settings.js';

/** Parses an absolute http(s) URL, or returns null: never throws. */
export function parseHttpUrl(value: string): URL | null {
  let url: URL;
  try {
    // Parsed once: URL.canParse and then new URL would parse it twice (rules read thousands of connections at start).
    url = new URL(value);
  } catch {
    return null;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Outbound identity-provider URLs must be https; plain http is tolerated only for a
 * provider on loopback outside production (the demo provider, tests).
 */
export function httpsRequirementMessage(value: string, environment: Environment): string | undefined {
  const url = parseHttpUrl(value);
  if (!url) {
    return value.startsWith('<')
      ? 'must be an absolute https URL (it still holds the starter placeholder)'
      : 'must be an absolute https URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (environment !== 'production' && isLoopbackHost(url.hostname)) return undefined;
  return 'must use https (http is accepted only for a loopback host outside production)';
}

/** A local path such as `/signin-oidc`: one leading slash, no scheme, host, query, fragment or spaces. */
export function isLocalPath(value: string): boolean {
  return /^\/(?![/\\])[^?#\s\\]*$/.test(value);
}
