import { escapeXml, newSamlId } from '../../scripts/saml/saml-response.js';

/** The eduPerson and LDAP attributes a Shibboleth IdP releases, by their `urn:oid` names (FriendlyName in comments). */
export const ShibbolethAttributes = {
  eduPersonPrincipalName: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.6',
  eduPersonScopedAffiliation: 'urn:oid:1.3.6.1.4.1.5923.1.1.1.9',
  mail: 'urn:oid:0.9.2342.19200300.100.1.3',
  displayName: 'urn:oid:2.16.840.1.113730.3.1.241',
  givenName: 'urn:oid:2.5.4.42',
  sn: 'urn:oid:2.5.4.4',
} as const;

export interface ShibbolethAssertionFields {
  /** The IdP's entity ID (Shibboleth's `https://idp.example.edu/idp/shibboleth`). */
  issuer: string;
  audience: string;
  recipient: string;
  inResponseTo: string;
  /** `persistent` (a pairwise opaque ID qualified by both entity IDs) or `transient`. */
  nameIdFormat: 'persistent' | 'transient';
  nameId: string;
  attributes: Record<keyof typeof ShibbolethAttributes, string[]>;
}

/**
 * An assertion written as Shibboleth IdP 4/5 writes one: `saml2:` prefixes, a persistent
 * NameID with NameQualifier (the IdP) and SPNameQualifier (us), attributes under `urn:oid`
 * names with the URI NameFormat and a FriendlyName, values typed `xsd:string`, a scoped
 * eduPersonPrincipalName (`user@example.edu`), and a SubjectLocality in the AuthnStatement.
 * It is then signed and encrypted by the test identity provider as Shibboleth would.
 */
export function shibbolethAssertionXml(fields: ShibbolethAssertionFields): string {
  const now = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();
  const id = newSamlId();
  const until = iso(now + 5 * 60_000);
  const nameId =
    fields.nameIdFormat === 'persistent'
      ? `<saml2:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent" NameQualifier="${escapeXml(fields.issuer)}" SPNameQualifier="${escapeXml(fields.audience)}">${escapeXml(fields.nameId)}</saml2:NameID>`
      : `<saml2:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:transient" NameQualifier="${escapeXml(fields.issuer)}" SPNameQualifier="${escapeXml(fields.audience)}">${escapeXml(fields.nameId)}</saml2:NameID>`;
  const attributes = (Object.keys(ShibbolethAttributes) as Array<keyof typeof ShibbolethAttributes>)
    .filter((friendlyName) => fields.attributes[friendlyName].length > 0)
    .map(
      (friendlyName) =>
        `<saml2:Attribute FriendlyName="${friendlyName}" Name="${ShibbolethAttributes[friendlyName]}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri">` +
        fields.attributes[friendlyName]
          .map((value) => `<saml2:AttributeValue xsi:type="xsd:string">${escapeXml(value)}</saml2:AttributeValue>`)
          .join('') +
        `</saml2:Attribute>`,
    )
    .join('');
  return (
    `<saml2:Assertion xmlns:saml2="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="${id}" IssueInstant="${iso(now)}" Version="2.0">` +
    `<saml2:Issuer>${escapeXml(fields.issuer)}</saml2:Issuer>` +
    `<saml2:Subject>${nameId}<saml2:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml2:SubjectConfirmationData Address="127.0.0.1" InResponseTo="${escapeXml(fields.inResponseTo)}" NotOnOrAfter="${until}" Recipient="${escapeXml(fields.recipient)}"/>` +
    `</saml2:SubjectConfirmation></saml2:Subject>` +
    `<saml2:Conditions NotBefore="${iso(now - 1000)}" NotOnOrAfter="${until}"><saml2:AudienceRestriction><saml2:Audience>${escapeXml(fields.audience)}</saml2:Audience></saml2:AudienceRestriction></saml2:Conditions>` +
    `<saml2:AuthnStatement AuthnInstant="${iso(now - 2000)}" SessionIndex="_${id.slice(1, 17)}"><saml2:SubjectLocality Address="127.0.0.1"/>` +
    `<saml2:AuthnContext><saml2:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml2:AuthnContextClassRef></saml2:AuthnContext></saml2:AuthnStatement>` +
    `<saml2:AttributeStatement>${attributes}</saml2:AttributeStatement>` +
    `</saml2:Assertion>`
  );
}
