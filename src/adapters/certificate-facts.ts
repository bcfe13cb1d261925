import { X509Certificate } from 'node:crypto';
import type { ProviderSigningCertificate } from '../application/ports/identity-provider.js';

/** The longest subject kept: an identity provider writes it, and a page and a metric's reader show it. */
const MAX_SUBJECT_LENGTH = 200;

/**
 * What the administrator is shown of a signing certificate: its subject on one line and the
 * end of its validity, read from its base64 DER (`<ds:X509Certificate>`, a JWK's `x5c`
 * entry: RFC 7517 4.7); undefined when it is not a certificate.
 */
export function certificateFacts(der: string): ProviderSigningCertificate | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(der)) return undefined;
  try {
    const certificate = new X509Certificate(Buffer.from(der, 'base64'));
    const notAfter = Date.parse(certificate.validTo);
    if (!Number.isFinite(notAfter)) return undefined;
    // Node writes one attribute a line; control characters a provider put in a name go too.
    const subject = certificate.subject
      .split('\n')
      .map((part) => part.replace(/\p{Cc}/gu, '').trim())
      .filter((part) => part !== '')
      .join(', ')
      .slice(0, MAX_SUBJECT_LENGTH);
    return { subject, notAfter };
  } catch {
    return undefined;
  }
}
