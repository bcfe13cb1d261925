import type { ProviderChecks } from '../../domain/providers/provider-definition.js';
import type { SettingsProblem } from '../../domain/settings/problem.js';
import { isPemKeyPairProblem, readPemKeyPair } from '../pem-key-pair.js';
import type { Saml2Settings } from './saml2-settings.js';

/**
 * The startup rules of the service provider's signing pair: both keys or neither; when
 * given, a PEM certificate and the unencrypted RSA private key that belongs to it; and
 * required by what signs with it (SignAuthnRequests, SingleLogout). No problem quotes
 * either value: the key is a secret.
 */
export function signingKeyRules(settings: Saml2Settings, check: ProviderChecks): SettingsProblem[] {
  const certificate = settings.SigningCertificate.trim();
  const key = settings.SigningKey.trim();
  const users = [settings.SignAuthnRequests && 'SignAuthnRequests', settings.SingleLogout && 'SingleLogout'].filter(
    (name): name is string => typeof name === 'string',
  );
  if (certificate === '' && key === '') {
    return users.length === 0
      ? []
      : check.problem(
          'SigningKey',
          `and SigningCertificate are required when ${users.join(' or ')} is true: messages are signed with them`,
        );
  }
  if (certificate === '') return check.problem('SigningCertificate', 'is required when SigningKey is set');
  if (key === '') return check.problem('SigningKey', 'is required when SigningCertificate is set');
  const pair = readPemKeyPair(certificate, key);
  if (!isPemKeyPairProblem(pair)) return [];
  return check.problem(pair.key === 'certificate' ? 'SigningCertificate' : 'SigningKey', pair.reason);
}
