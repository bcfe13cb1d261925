import type { ProviderKey } from '../settings/settings.js';
import { ClaimTypes } from './claim-types.js';

/**
 * One row of a mapping table: the provider claim `source` becomes the application claim
 * `target` (ASP.NET's `ClaimActions.MapJsonKey(target, source)`).
 */
export interface ClaimMapping {
  source: string;
  target: string;
  /**
   * Use this row only when no other row (or a passed-through application claim) gave
   * `target` a value: `preferred_username` names the user only when `name` is missing.
   * Fallback rows apply in table order, so the first one with a value wins.
   */
  fallback?: boolean;
}

/** SAML claim URIs (WS-Federation / ADFS / Entra ID vocabulary), emitted by the SAML adapter as claim names. */
export const SamlClaimUris = {
  /** The SAML adapter emits the assertion's `<NameID>` under this name (never a transient one: see the SAML adapter). */
  NameIdentifier: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier',
  Name: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
  GivenName: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
  Surname: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
  EmailAddress: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  Upn: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn',
  Role: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role',
  Group: 'http://schemas.xmlsoap.org/claims/Group',
  Groups: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
} as const;

/**
 * LDAP / eduPerson attribute names in the `urn:oid` form that SAML identity providers use
 * with the URI name format (SAML V2.0 X.500/LDAP Attribute Profile; eduPerson).
 */
export const SamlAttributeOids = {
  /** RFC 4524 `mail`. */
  Mail: 'urn:oid:0.9.2342.19200300.100.1.3',
  /** RFC 2798 `displayName`. */
  DisplayName: 'urn:oid:2.16.840.1.113730.3.1.241',
  /** RFC 4519 `givenName`. */
  GivenName: 'urn:oid:2.5.4.42',
  /** RFC 4519 `sn` (surname). */
  Surname: 'urn:oid:2.5.4.4',
  /** eduPerson `eduPersonPrincipalName`: a scoped, stable-enough login name (`user@example.edu`). */
  EduPersonPrincipalName: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.6',
} as const;

const { Subject, Name, Email, Role, Group, Permission } = ClaimTypes;

/**
 * The built-in tables, one per provider. Only claims whose meaning is unambiguous are
 * mapped; everything else stays under its provider name (or is removed with
 * `RemoveOriginalClaims`) and can be mapped through `ClaimsTransformation:Mappings`.
 */
export const builtInClaimMappings: Readonly<Record<ProviderKey, readonly ClaimMapping[]>> = {
  // OIDC Core 5.1 standard claims; `roles`/`groups`/`permissions` are common IdP extensions.
  OpenIdConnect: [
    { source: 'sub', target: Subject },
    { source: 'name', target: Name },
    { source: 'preferred_username', target: Name, fallback: true },
    { source: 'email', target: Email },
    { source: 'roles', target: Role },
    { source: 'role', target: Role },
    { source: 'groups', target: Group },
    { source: 'permissions', target: Permission },
  ],
  // The NameID first; eduPersonPrincipalName and the UPN only when no (persistent, e-mail ...)
  // NameID names the user. Names fall back from the full name to the display name, then to
  // the given name or the surname alone. Multi-valued attributes (roles, groups) keep every value.
  Saml2: [
    { source: SamlClaimUris.NameIdentifier, target: Subject },
    { source: SamlAttributeOids.EduPersonPrincipalName, target: Subject, fallback: true },
    { source: SamlClaimUris.Upn, target: Subject, fallback: true },
    { source: SamlClaimUris.Name, target: Name },
    { source: SamlAttributeOids.DisplayName, target: Name, fallback: true },
    { source: SamlClaimUris.GivenName, target: Name, fallback: true },
    { source: SamlAttributeOids.GivenName, target: Name, fallback: true },
    { source: SamlClaimUris.Surname, target: Name, fallback: true },
    { source: SamlAttributeOids.Surname, target: Name, fallback: true },
    { source: SamlClaimUris.EmailAddress, target: Email },
    { source: SamlAttributeOids.Mail, target: Email, fallback: true },
    { source: SamlClaimUris.Role, target: Role },
    { source: SamlClaimUris.Group, target: Group },
    { source: SamlClaimUris.Groups, target: Group },
  ],
  // Microsoft Graph `GET /me` (the Social1 adapter reads it): `id` is the user's object id,
  // stable and never reassigned; `mail` is often null for personal accounts, hence the
  // `userPrincipalName` fallback (ASP.NET Core's MicrosoftAccount handler does the same).
  Social1: [
    { source: 'id', target: Subject },
    { source: 'displayName', target: Name },
    { source: 'mail', target: Email },
    { source: 'userPrincipalName', target: Email, fallback: true },
  ],
  // Login with Amazon's customer profile (`GET /user/profile`): `user_id` is the account id
  // (`amzn1.account....`); there is no `sub`.
  Social2: [
    { source: 'user_id', target: Subject },
    { source: 'name', target: Name },
    { source: 'email', target: Email },
  ],
  // GitHub `GET /user`: the numeric `id` is permanent, `login` can be renamed and reused,
  // so it is only a name when `name` is null. The Social3 adapter puts under `email` only
  // a verified address from `GET /user/emails`, never the profile's public email.
  Social3: [
    { source: 'id', target: Subject },
    { source: 'name', target: Name },
    { source: 'login', target: Name, fallback: true },
    { source: 'email', target: Email },
  ],
};

/**
 * The table in force for one provider: the built-in rows, where a configured mapping
 * (`ClaimsTransformation:Mappings:<ProviderKey>`, source -> target) replaces every built-in
 * row with the same source and otherwise adds a row. Configured rows are never fallbacks.
 */
export function effectiveClaimMappings(
  provider: ProviderKey,
  extraMappings: Readonly<Record<string, string>> = {},
): ClaimMapping[] {
  const configured = Object.entries(extraMappings).map(([source, target]) => ({ source, target }));
  const overridden = new Set(configured.map((row) => row.source));
  return [...builtInClaimMappings[provider].filter((row) => !overridden.has(row.source)), ...configured];
}
