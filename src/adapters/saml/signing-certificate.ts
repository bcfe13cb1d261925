import { X509Certificate } from 'node:crypto';

/** A certificate the identity provider's metadata names for signing. */
export interface SigningCertificate {
  /** The base64 DER body, as in `<ds:X509Certificate>` (whitespace removed). */
  body: string;
  pem: string;
  /** Milliseconds since the epoch. */
  notBefore: number;
  notAfter: number;
}

/** Parses a `<ds:X509Certificate>` body; undefined when it is not a certificate. */
export function readSigningCertificate(text: string): SigningCertificate | undefined {
  const body = text.replace(/\s+/g, '');
  if (body === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return undefined;
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  try {
    const certificate = new X509Certificate(pem);
    return {
      body,
      pem,
      notBefore: Date.parse(certificate.validFrom),
      notAfter: Date.parse(certificate.validTo),
    };
  } catch {
    return undefined;
  }
}

/** Parses one PEM certificate (`-----BEGIN CERTIFICATE-----` ... `-----END CERTIFICATE-----`); undefined otherwise. */
export function readPemCertificate(pem: string): SigningCertificate | undefined {
  const match = /^\s*-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----\s*$/.exec(pem);
  return match?.[1] === undefined ? undefined : readSigningCertificate(match[1]);
}

/** True when `now` lies within the certificate's validity period (RFC 5280 4.1.2.5). */
export function isWithinValidity(certificate: SigningCertificate, now: number): boolean {
  return certificate.notBefore <= now && now <= certificate.notAfter;
}
