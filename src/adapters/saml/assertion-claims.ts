import { SamlAttributeOids, SamlClaimUris } from '../../domain/claims/claim-mappings.js';
import { NameIdFormats, Namespaces } from './saml-names.js';
import { samlRefusal } from './saml-refusals.js';
import { attributeOf, childElements, textOf } from './saml-xml.js';

/** Attribute names and values are bounded: a signed assertion is still not an unbounded claims source. */
const MAX_ATTRIBUTES = 256;
const MAX_VALUES_PER_ATTRIBUTE = 512;

/**
 * The raw claims of a checked, signed assertion: the NameID and every attribute of every
 * AttributeStatement (SAML Core 2.7.3), each attribute under its `Name` with all its values
 * (roles and groups are multi-valued). The claims are normalized by the application's
 * claims transformation, which maps claim URIs and `urn:oid` names to `application:*`.
 *
 * The object has no prototype, so an attribute named `__proto__` or `constructor` is an
 * ordinary claim and cannot reach `Object.prototype`.
 *
 * A transient NameID (SAML Core 8.3.8) names this sign-in, not the user: it is not emitted,
 * so it never becomes `application:subject`. The subject then comes from a stable attribute
 * (eduPersonPrincipalName, UPN) through the claims table, and a sign-in with neither is
 * refused (`idp.subject_missing`) rather than signing in a different "user" each time.
 */
export function assertionClaims(assertion: Element): Record<string, string[]> {
  const claims: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const add = (name: string, values: string[]) => {
    const existing = Object.hasOwn(claims, name) ? claims[name] : undefined;
    claims[name] = [...(existing ?? []), ...values].slice(0, MAX_VALUES_PER_ATTRIBUTE);
  };

  const [subject] = childElements(assertion, Namespaces.assertion, 'Subject');
  const [nameId] = subject ? childElements(subject, Namespaces.assertion, 'NameID') : [];
  const transient = nameId !== undefined && attributeOf(nameId, 'Format') === NameIdFormats.transient;
  if (nameId && !transient) {
    const value = textOf(nameId);
    if (value !== '') add(SamlClaimUris.NameIdentifier, [value]);
    // SAML Core 8.3.2: an emailAddress NameID is an e-mail address; the table reads it when no attribute gives one.
    if (value !== '' && attributeOf(nameId, 'Format') === NameIdFormats.emailAddress) {
      add(SamlClaimUris.NameIdEmailAddress, [value]);
    }
  }

  let count = 0;
  for (const statement of childElements(assertion, Namespaces.assertion, 'AttributeStatement')) {
    for (const attribute of childElements(statement, Namespaces.assertion, 'Attribute')) {
      const name = attributeOf(attribute, 'Name');
      if (name === undefined || name === '' || ++count > MAX_ATTRIBUTES) continue;
      const values = childElements(attribute, Namespaces.assertion, 'AttributeValue')
        .map(textOf)
        .filter((value) => value !== '');
      add(name, values);
    }
  }
  if (transient && !hasStableIdentifier(claims)) throw samlRefusal('idp.subject_missing');
  return claims;
}

/** Attributes that name the user durably when the NameID is transient (see the claims table). */
const STABLE_IDENTIFIERS = [SamlAttributeOids.EduPersonPrincipalName, SamlClaimUris.Upn];

function hasStableIdentifier(claims: Record<string, string[]>): boolean {
  return STABLE_IDENTIFIERS.some((name) => (Object.hasOwn(claims, name) ? (claims[name]?.length ?? 0) : 0) > 0);
}
