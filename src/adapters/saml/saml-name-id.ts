import type { ProviderSessionRecord } from '../../application/ports/identity-provider.js';
import { NameIdFormats, Namespaces } from './saml-names.js';
import { attributeOf, childElements, textOf } from './saml-xml.js';

/** A NameID as SAML Core 2.2.3 compares it: the value with its Format and qualifiers. */
export interface SamlNameId {
  value: string;
  format?: string;
  nameQualifier?: string;
  spNameQualifier?: string;
}

/** The longest NameID or SessionIndex kept: a signed assertion is still not an unbounded source. */
const MAX_LENGTH = 1024;

/** The `saml:NameID` child of `parent` (a Subject, a LogoutRequest), or undefined when there is none usable. */
export function readNameId(parent: Element): SamlNameId | undefined {
  const [element] = childElements(parent, Namespaces.assertion, 'NameID');
  if (!element) return undefined;
  const value = textOf(element);
  if (value === '' || value.length > MAX_LENGTH) return undefined;
  const optional = (name: string) => {
    const found = attributeOf(element, name);
    return found === undefined || found.length > MAX_LENGTH ? undefined : found;
  };
  return {
    value,
    ...defined('format', optional('Format')),
    ...defined('nameQualifier', optional('NameQualifier')),
    ...defined('spNameQualifier', optional('SPNameQualifier')),
  };
}

/** The SessionIndex of the assertion's (first) AuthnStatement (SAML Core 2.7.2), when it names one. */
export function sessionIndexOf(assertion: Element): string | undefined {
  const [statement] = childElements(assertion, Namespaces.assertion, 'AuthnStatement');
  const value = statement ? attributeOf(statement, 'SessionIndex') : undefined;
  return value !== undefined && value !== '' && value.length <= MAX_LENGTH ? value : undefined;
}

/**
 * The names a LogoutRequest can give a sign-in: the NameID alone, and with the
 * SessionIndex when there is one. Compared as SAML Core 2.2.3 and 8.3 say: an absent
 * Format is `unspecified`, an absent NameQualifier is the identity provider and an absent
 * SPNameQualifier is this service provider (what they default to for persistent and
 * transient identifiers), so an identity provider that writes them in one message and
 * leaves them out in the other still names the same subject.
 */
export function logoutKeysOf(
  identityProvider: string,
  serviceProvider: string,
  nameId: SamlNameId,
  sessionIndex: string | undefined,
): string[] {
  const subject = [
    identityProvider,
    nameId.format ?? NameIdFormats.unspecified,
    nameId.nameQualifier ?? identityProvider,
    nameId.spNameQualifier ?? serviceProvider,
    nameId.value,
  ];
  const keys = [JSON.stringify(['saml-nameid', ...subject])];
  if (sessionIndex !== undefined) keys.push(JSON.stringify(['saml-session', ...subject, sessionIndex]));
  return keys;
}

/**
 * The name of a provider session by its SessionIndex alone, whatever NameID it was issued
 * to: a LogoutRequest naming the SessionIndex ends it (`ProviderLogout.endedSessions`), and
 * a sign-in carrying it lists its session under it too, so the application refuses one
 * that completes after the logout.
 */
export function endedSessionKeyOf(identityProvider: string, sessionIndex: string): string {
  return JSON.stringify(['saml-session-index', identityProvider, sessionIndex]);
}

/** What the provider session of a SAML sign-in keeps: what an SP-initiated LogoutRequest must name. */
export function samlSessionRecord(nameId: SamlNameId, sessionIndex: string | undefined): ProviderSessionRecord {
  return { nameId: { ...nameId }, ...defined('sessionIndex', sessionIndex) };
}

/** The record read back, field by field (it comes from a store outside the process). */
export function readSamlSessionRecord(
  record: ProviderSessionRecord | undefined,
): { nameId: SamlNameId; sessionIndex: string | undefined } | undefined {
  const nameId = record?.nameId;
  if (typeof nameId !== 'object' || nameId === null) return undefined;
  const field = (name: string) => {
    const value = (nameId as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const value = field('value');
  if (value === undefined) return undefined;
  const sessionIndex = typeof record?.sessionIndex === 'string' ? record.sessionIndex : undefined;
  return {
    nameId: {
      value,
      ...defined('format', field('format')),
      ...defined('nameQualifier', field('nameQualifier')),
      ...defined('spNameQualifier', field('spNameQualifier')),
    },
    sessionIndex,
  };
}

function defined<K extends string>(name: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: string };
}
