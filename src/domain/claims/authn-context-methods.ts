/**
 * What a SAML authentication context class (`AuthnContextClassRef`, SAML Authn Context
 * 2.0) says of how the person signed in, as OpenID `amr` values (RFC 8176). SAML has no
 * `amr`; policies ask for `amr` values whatever the protocol, so the class is translated
 * by this table, which `Authentication:AuthnContextClassMethods` extends or overrides
 * (docs/step-up.md lists which identity provider sends which class).
 */
export const BUILT_IN_AUTHN_CONTEXT_METHODS: Readonly<Record<string, readonly string[]>> = {
  'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport': ['pwd'],
  'urn:oasis:names:tc:SAML:2.0:ac:classes:Password': ['pwd'],
  'urn:oasis:names:tc:SAML:2.0:ac:classes:TimeSyncToken': ['otp'],
  'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract': ['mfa'],
  'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorUnregistered': ['mfa'],
  'urn:oasis:names:tc:SAML:2.0:ac:classes:Smartcard': ['sc'],
  'urn:oasis:names:tc:SAML:2.0:ac:classes:SmartcardPKI': ['sc', 'mfa'],
  // ADFS (and Entra ID, Okta for Microsoft apps) after a second factor.
  'http://schemas.microsoft.com/claims/multipleauthn': ['mfa'],
  // ADFS and Entra ID, first factor.
  'http://schemas.microsoft.com/ws/2008/06/identity/authenticationmethod/password': ['pwd'],
  'urn:federation:authentication:windows': ['wia'],
  // The REFEDS MFA profile (Shibboleth, Okta, Keycloak and others when configured for it).
  'https://refeds.org/profile/mfa': ['mfa'],
};

/** The table in force: the built-in rows, then the configured ones (`class = "amr amr"`; a configured row replaces a built-in one). */
export function authnContextMethods(
  configured: Readonly<Record<string, string>>,
): Readonly<Record<string, readonly string[]>> {
  const table: Record<string, readonly string[]> = { ...BUILT_IN_AUTHN_CONTEXT_METHODS };
  for (const [contextClass, methods] of Object.entries(configured)) {
    table[contextClass] = methods.split(/\s+/).filter((method) => method !== '');
  }
  return table;
}

/** The `amr` values `classes` stand for, each once, in table order; a class the table does not know stands for none. */
export function methodsOfContextClasses(
  table: Readonly<Record<string, readonly string[]>>,
  classes: readonly string[],
): string[] {
  const methods = classes.flatMap((contextClass) =>
    Object.hasOwn(table, contextClass) ? (table[contextClass] ?? []) : [],
  );
  return [...new Set(methods)];
}
