import type { ProviderDefinition } from '../providers/provider-definition.js';
import { issuerKey } from './connection-index.js';

/**
 * What a declaration not checked yet could claim, read from its keys as stored (any letter
 * case, values as written) without checking them: more than the connection rules may let
 * it hold, never less. The registry checks such declarations later (a large catalog at
 * start), and these say which of them a lookup must check first, so that the outcome is
 * the one checking them all in order would give.
 */
export interface ClaimHints {
  /**
   * The domains proved through DNS: a domain it routes (`example.com`, or `*.example.com`)
   * is one of these or a wildcard over one, so two declarations can only share or overlap
   * domains where one of these is another's or under it.
   */
  domains: readonly string[];
  /** The identity provider its keys name, compared as the registry compares issuers (one at most). */
  issuers: readonly string[];
  /** Whether it could be listed on the login page (`ShowOnLoginPage` true, or a value typed as true). */
  listed: boolean;
}

/**
 * The hints of a declaration's stored keys and proved domains. The issuer is what the
 * protocol's own `declaredIssuer` reads from settings made the way the rules make them (the
 * protocol's defaults, then the keys set, in their canonical spelling, strings typed as the
 * configuration types them: a number or a boolean as its text, null as ""); a declaration
 * whose protocol is not one a connection can have names none, and is refused by the rules.
 */
export function claimHints(
  keys: Readonly<Record<string, unknown>>,
  provedDomains: readonly string[],
  protocols: readonly ProviderDefinition[],
): ClaimHints {
  let protocolName: string | undefined;
  let listed = false;
  for (const [key, value] of Object.entries(keys)) {
    const lower = key.toLowerCase();
    if (lower === 'protocol') protocolName = typedAsString(value);
    // Typed as a boolean, true is true, "true" or 1.
    else if (lower === 'showonloginpage') listed ||= value === true || value === 'true' || value === 1;
  }
  const protocol = protocols.find((kind) => kind.instancePaths && kind.key === protocolName);
  const issuer = protocol ? issuerOf(protocol, keys) : '';
  // As the registry compares them: an empty issuer is compared with none.
  return { domains: provedDomains, issuers: issuer === '' ? [] : [issuerKey(issuer)], listed };
}

function issuerOf(protocol: ProviderDefinition, keys: Readonly<Record<string, unknown>>): string {
  if (!protocol.declaredIssuer) return '';
  const canonical = canonicalNames(protocol);
  // Every key of the protocol's settings is there: its defaults first.
  const settings: Record<string, unknown> = { ...protocol.defaults };
  for (const [key, value] of Object.entries(keys)) {
    const name = canonical.get(key.toLowerCase());
    const text = typedAsString(value);
    // A value no string can be typed from (an object, an array) is refused by the rules.
    if (name !== undefined && text !== undefined) settings[name] = text;
  }
  return protocol.declaredIssuer(settings as unknown as typeof protocol.defaults).value;
}

const canonicalByProtocol = new WeakMap<ProviderDefinition, ReadonlyMap<string, string>>();

/** A protocol's keys by their lower-case spelling, made once. */
function canonicalNames(protocol: ProviderDefinition): ReadonlyMap<string, string> {
  let names = canonicalByProtocol.get(protocol);
  if (!names) {
    names = new Map(Object.keys(protocol.kinds).map((name) => [name.toLowerCase(), name]));
    canonicalByProtocol.set(protocol, names);
  }
  return names;
}

/** A value as the configuration types a string: a string, a number or boolean's text, null as ""; undefined for the rest. */
function typedAsString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null ? '' : undefined;
}
