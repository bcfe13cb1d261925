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
  /**
   * Gatehouse's own name: the SAML adapter emits a NameID whose Format is `emailAddress`
   * under it too (SAML Core 8.3.2: the value is an e-mail address), so that an identity
   * provider that gives the address only as the NameID (a common default) still names one.
   */
  NameIdEmailAddress: 'urn:gatehouse:saml:nameid:emailAddress',
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

/**
 * The table in force for one provider: its built-in rows (its declaration's), where a configured mapping
 * (`ClaimsTransformation:Mappings:<ProviderKey>`, source -> target) replaces every built-in
 * row with the same source and otherwise adds a row. Configured rows are never fallbacks.
 */
export function effectiveClaimMappings(
  builtIn: readonly ClaimMapping[],
  extraMappings: Readonly<Record<string, string>> = {},
): ClaimMapping[] {
  const configured = Object.entries(extraMappings).map(([source, target]) => ({ source, target }));
  const overridden = new Set(configured.map((row) => row.source));
  return [...builtIn.filter((row) => !overridden.has(row.source)), ...configured];
}
