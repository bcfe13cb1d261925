import type { PreflightRefusal } from '../../application/ports/connection-preflight.js';
import { FetchRefusal } from '../outbound/fetch-refusal.js';
import { keySetProblems } from './json-web-key-set.js';
import { quoteShort, type PreflightContext } from './preflight-context.js';

const AUTHORITY = 'Authority';
const WELL_KNOWN = '/.well-known/';

/**
 * An OpenID Connect connection's provider, as a sign-in will find it: its discovery
 * document at the address openid-client derives from `Authority`, a JSON object whose
 * `issuer` is the Authority itself (OpenID Connect Discovery 1.0, 4.3: identical, or every
 * ID token's `iss` check fails), and whose `jwks_uri` serves a key set holding at least
 * one signing key, none with an expired certificate.
 */
export async function checkOpenIdProvider(
  authority: string,
  issuerKey: string,
  context: PreflightContext,
): Promise<PreflightRefusal[]> {
  if (!URL.canParse(authority)) return [{ key: AUTHORITY, reason: 'The Authority is not an absolute URL.' }];
  const document = await fetched(context, discoveryAddress(authority), 'the OpenID discovery document');
  if (typeof document !== 'string') return [{ key: AUTHORITY, reason: document.reason }];
  const metadata = jsonObject(document);
  if (!metadata) return [{ key: AUTHORITY, reason: 'The OpenID discovery document is not a JSON object.' }];
  context.passed?.(AUTHORITY, 'The OpenID discovery document was fetched.');

  const refusals: PreflightRefusal[] = [];
  const issuer = metadata.issuer;
  if (typeof issuer !== 'string' || issuer === '') {
    refusals.push({ key: issuerKey, reason: 'The OpenID discovery document names no issuer.' });
  } else if (!sameUrl(issuer, expectedIssuer(authority))) {
    refusals.push({
      key: issuerKey,
      reason: `The OpenID discovery document names the issuer ${quoteShort(issuer)}, which is not the ${issuerKey} given: they must be identical (OpenID Connect Discovery 4.3).`,
    });
  } else {
    context.passed?.(issuerKey, `It names the issuer ${quoteShort(issuer)}, the ${issuerKey} given.`);
  }
  const jwksUri = metadata.jwks_uri;
  if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri)) {
    refusals.push({ key: AUTHORITY, reason: 'The OpenID discovery document names no jwks_uri (its signing keys).' });
    return refusals;
  }
  const keySet = await fetched(
    context,
    jwksUri,
    'the key set at jwks_uri',
    'application/jwk-set+json, application/json',
  );
  if (typeof keySet !== 'string') return [...refusals, { key: AUTHORITY, reason: keySet.reason }];
  const problems = keySetProblems(keySet, context.now);
  for (const problem of problems) {
    refusals.push({ key: AUTHORITY, reason: `The key set at jwks_uri ${problem}.` });
  }
  if (problems.length === 0) {
    context.passed?.(AUTHORITY, 'Its key set (jwks_uri) holds keys for signatures, none with an expired certificate.');
  }
  return refusals;
}

/**
 * Where openid-client looks (its `discovery`): an Authority that already is a
 * `/.well-known/` address as it is, otherwise `/.well-known/openid-configuration`
 * appended to its path (OpenID Connect Discovery 4.1).
 */
export function discoveryAddress(authority: string): string {
  const url = new URL(authority);
  if (url.href.includes(WELL_KNOWN)) return url.href;
  url.pathname = `${url.pathname}/.well-known/openid-configuration`.replace('//', '/');
  return url.href;
}

/** The issuer an Authority declares: itself, or what precedes `/.well-known/` when it is the document's own address. */
function expectedIssuer(authority: string): string {
  const at = authority.indexOf(WELL_KNOWN);
  return at === -1 ? authority : authority.slice(0, at);
}

/** openid-client's comparison: both parsed as URLs, then compared whole. */
function sameUrl(found: string, expected: string): boolean {
  return URL.canParse(found) && URL.canParse(expected) && new URL(found).href === new URL(expected).href;
}

async function fetched(
  context: PreflightContext,
  url: string,
  what: string,
  accept = 'application/json',
): Promise<string | { reason: string }> {
  try {
    return await context.fetch(url, accept);
  } catch (error) {
    if (!(error instanceof FetchRefusal)) throw error;
    return { reason: `${capitalized(what)} could not be fetched: ${error.reason}.` };
  }
}

function jsonObject(text: string): Readonly<Record<string, unknown>> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    return Object.fromEntries(Object.entries(parsed));
  } catch {
    return undefined;
  }
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
