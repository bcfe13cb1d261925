/**
 * A signing key and its self-signed X.509 certificate, made in memory for the demo SAML
 * identity provider and the tests (node-forge writes the certificate; Node makes the RSA
 * key, which is much faster). Development only: nothing in src/ imports it.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface SigningCredential {
  privateKeyPem: string;
  certificatePem: string;
  /** The base64 DER body, as metadata and KeyInfo carry it. */
  certificateBody: string;
}

export interface CredentialOptions {
  commonName?: string;
  /** Milliseconds since the epoch; default an hour ago. */
  notBefore?: number;
  /** Default ten years from now. */
  notAfter?: number;
  /** Subject alternative names (DNS names and IP addresses), for a TLS server certificate. */
  altNames?: string[];
}

export function makeSigningCredential(options: CredentialOptions = {}): SigningCredential {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  certificate.serialNumber = `01${randomBytes(8).toString('hex')}`;
  certificate.validity.notBefore = new Date(options.notBefore ?? Date.now() - 60 * 60 * 1000);
  certificate.validity.notAfter = new Date(options.notAfter ?? Date.now() + 10 * 365 * 24 * 60 * 60 * 1000);
  const name = [{ name: 'commonName', value: options.commonName ?? 'saml-test-idp.example' }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  if (options.altNames) {
    certificate.setExtensions([
      {
        name: 'subjectAltName',
        altNames: options.altNames.map((value) =>
          /^[\d.]+$/.test(value) ? { type: 7, ip: value } : { type: 2, value },
        ),
      },
    ]);
  }
  certificate.sign(forge.pki.privateKeyFromPem(privateKeyPem), forge.md.sha256.create());
  const certificatePem = forge.pki.certificateToPem(certificate);
  const certificateBody = certificatePem.replace(/-----[A-Z ]+-----|\s/g, '');
  return { privateKeyPem, certificatePem, certificateBody };
}
