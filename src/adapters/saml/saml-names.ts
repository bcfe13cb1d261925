/** XML namespaces and URNs of SAML 2.0 (SAML Core, Bindings, Profiles) and XML Signature that the adapter reads. */
export const Namespaces = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  signature: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

export const Bindings = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;

/** SAML Core 3.2.2.2: the top-level status that means the request succeeded. */
export const STATUS_SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** SAML Profiles 4.1.4.2: the subject confirmation method of a Web Browser SSO assertion. */
export const BEARER_METHOD = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

export const NameIdFormats = {
  /** SAML Core 8.3.8: a one-time, opaque identifier: never a stable subject. */
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
} as const;
