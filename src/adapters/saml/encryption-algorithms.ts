/**
 * The XML Encryption algorithms (XML Encryption 1.1, W3C 2013) an encrypted assertion may
 * use here, and those refused. Key transport is RSA-OAEP only: RSA PKCS#1 v1.5
 * (`xmlenc#rsa-1_5`) is open to Bleichenbacher's padding oracle ("Bleichenbacher's Attack
 * Strikes Again: Breaking PKCS#1 v1.5 in XML Encryption", Jager et al. 2012) and is refused
 * with no switch to allow it; so are Triple DES and AES-192 content encryption.
 */
export const KeyTransport = {
  /** XML Encryption 5.5.2: OAEP with MGF1-SHA1; the digest is SHA-1 unless a DigestMethod says otherwise. */
  rsaOaepMgf1p: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
  /** XML Encryption 1.1 5.5.2: OAEP with its digest (DigestMethod) and mask generation (MGF) named, SHA-1 by default. */
  rsaOaep: 'http://www.w3.org/2009/xmlenc11#rsa-oaep',
  /** Refused. */
  rsa15: 'http://www.w3.org/2001/04/xmlenc#rsa-1_5',
} as const;

/** The content (block) encryptions accepted, with their key and IV lengths in bytes. */
export const CONTENT_ENCRYPTIONS: ReadonlyMap<
  string,
  { cipher: string; keyBytes: number; ivBytes: number; gcm: boolean }
> = new Map([
  ['http://www.w3.org/2009/xmlenc11#aes128-gcm', { cipher: 'aes-128-gcm', keyBytes: 16, ivBytes: 12, gcm: true }],
  ['http://www.w3.org/2009/xmlenc11#aes256-gcm', { cipher: 'aes-256-gcm', keyBytes: 32, ivBytes: 12, gcm: true }],
  ['http://www.w3.org/2001/04/xmlenc#aes128-cbc', { cipher: 'aes-128-cbc', keyBytes: 16, ivBytes: 16, gcm: false }],
  ['http://www.w3.org/2001/04/xmlenc#aes256-cbc', { cipher: 'aes-256-cbc', keyBytes: 32, ivBytes: 16, gcm: false }],
]);

/** OAEP digests (DigestMethod) by URI, as node:crypto names them. */
export const OAEP_DIGESTS: ReadonlyMap<string, string> = new Map([
  ['http://www.w3.org/2000/09/xmldsig#sha1', 'sha1'],
  ['http://www.w3.org/2001/04/xmlenc#sha256', 'sha256'],
  ['http://www.w3.org/2001/04/xmldsig-more#sha384', 'sha384'],
  ['http://www.w3.org/2001/04/xmlenc#sha512', 'sha512'],
]);

/** XML Encryption 1.1 5.5.2: mask generation functions by URI. */
export const OAEP_MASKS: ReadonlyMap<string, string> = new Map([
  ['http://www.w3.org/2009/xmlenc11#mgf1sha1', 'sha1'],
  ['http://www.w3.org/2009/xmlenc11#mgf1sha256', 'sha256'],
  ['http://www.w3.org/2009/xmlenc11#mgf1sha384', 'sha384'],
  ['http://www.w3.org/2009/xmlenc11#mgf1sha512', 'sha512'],
]);

export const EncryptionNamespaces = {
  xenc: 'http://www.w3.org/2001/04/xmlenc#',
  xenc11: 'http://www.w3.org/2009/xmlenc11#',
} as const;

/**
 * What our metadata offers (SAML Metadata 2.4.1.1, `<md:EncryptionMethod>` in the
 * encryption KeyDescriptor), in order of preference: AES-GCM before AES-CBC, and RSA-OAEP
 * with SHA-256 before the SHA-1 defaults most identity providers use. An identity provider
 * that reads them (Shibboleth does) picks from these.
 */
export const ADVERTISED_ENCRYPTION_METHODS: ReadonlyArray<{ algorithm: string; digest?: string; mask?: string }> = [
  { algorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm' },
  { algorithm: 'http://www.w3.org/2009/xmlenc11#aes128-gcm' },
  { algorithm: 'http://www.w3.org/2001/04/xmlenc#aes256-cbc' },
  { algorithm: 'http://www.w3.org/2001/04/xmlenc#aes128-cbc' },
  {
    algorithm: KeyTransport.rsaOaep,
    digest: 'http://www.w3.org/2001/04/xmlenc#sha256',
    mask: 'http://www.w3.org/2009/xmlenc11#mgf1sha256',
  },
  { algorithm: KeyTransport.rsaOaepMgf1p, digest: 'http://www.w3.org/2000/09/xmldsig#sha1' },
];
