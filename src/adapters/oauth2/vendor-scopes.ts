/**
 * How a vendor spells the generic scope names of the starter configuration: `profile` and
 * `email` mean "who the user is" and "their email address" everywhere, but each vendor
 * names its own scopes (GitHub `read:user` and `user:email`, Login with Amazon `profile`,
 * Microsoft Graph `User.Read`). A name maps to zero or more vendor scopes.
 */
export type ScopeTranslation = Readonly<Record<string, readonly string[]>>;

/**
 * The scopes to request from a vendor: `required` first (what the handler itself needs
 * to read the user), then each configured scope translated when the vendor's table knows
 * the name, or verbatim otherwise; each once, in order. An entry holding several names
 * separated by spaces is read as those names (RFC 6749 3.3: a scope token has no spaces).
 */
export function vendorScopes(
  configured: readonly string[],
  translation: ScopeTranslation,
  required: readonly string[] = [],
): string[] {
  const names = configured.flatMap((entry) => entry.split(/\s+/)).filter((name) => name !== '');
  const scopes = [
    ...required,
    ...names.flatMap((name) => (Object.hasOwn(translation, name) ? (translation[name] ?? []) : [name])),
  ];
  return [...new Set(scopes)];
}
