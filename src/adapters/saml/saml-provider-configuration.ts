import { GatehouseError } from '../../domain/errors.js';
import type { PemKeyPair } from '../pem-key-pair.js';
import type { MetadataTrust } from './identity-provider-metadata.js';
import type { Saml2Settings } from './saml2-settings.js';
import { readPemCertificate } from './signing-certificate.js';

/**
 * The checks a SAML provider's configuration must pass before it is built, each a
 * `config.invalid` naming the setting, and what it then trusts in the identity provider's
 * metadata: the entity to select from an aggregate, the certificate the metadata must be
 * signed with (MetadataSigningCertificate), whether it must say it wants signed requests.
 */
export function checkedMetadataTrust(options: {
  settings: Saml2Settings;
  acsUrl: string;
  timeoutMs: number;
  signing?: PemKeyPair;
}): MetadataTrust {
  const acs = URL.canParse(options.acsUrl) ? new URL(options.acsUrl) : undefined;
  if (!acs || !/^https?:$/.test(acs.protocol) || acs.search !== '' || acs.hash !== '') {
    throw new GatehouseError('config.invalid', 'The SAML ACS URL must be an absolute http(s) URL without query.');
  }
  if (!(options.timeoutMs > 0)) throw new GatehouseError('config.invalid', 'The SAML time-out must be positive.');
  const { settings } = options;
  const metadataSigner = settings.MetadataSigningCertificate.trim();
  const signingCertificate = metadataSigner === '' ? undefined : readPemCertificate(metadataSigner);
  if (metadataSigner !== '' && !signingCertificate) {
    throw new GatehouseError('config.invalid', 'The SAML MetadataSigningCertificate is not a PEM certificate.');
  }
  if ((settings.SignAuthnRequests || settings.SingleLogout) && !options.signing) {
    throw new GatehouseError('config.invalid', 'SAML signing needs SigningCertificate and SigningKey.');
  }
  return { idpEntityId: settings.IdpEntityId, signingCertificate, signsAuthnRequests: settings.SignAuthnRequests };
}
