import type { ProviderChecks } from '../../domain/providers/provider-definition.js';
import type { SettingsProblem } from '../../domain/settings/problem.js';
import { GatehouseError } from '../../domain/errors.js';
import { isPemKeyPairProblem, readPemKeyPair, type PemKeyPair } from '../pem-key-pair.js';
import type { Saml2Settings } from './saml2-settings.js';

/**
 * The service provider's encryption key pairs: `EncryptionCertificate` / `EncryptionKey`,
 * and a second pair `EncryptionCertificate2` / `EncryptionKey2` for a rollover. Every
 * configured pair is published in our metadata and tried for decryption.
 */
const SLOTS = [
  { certificate: 'EncryptionCertificate', key: 'EncryptionKey' },
  { certificate: 'EncryptionCertificate2', key: 'EncryptionKey2' },
] as const;

type EncryptionSettings = Pick<
  Saml2Settings,
  'EncryptionCertificate' | 'EncryptionKey' | 'EncryptionCertificate2' | 'EncryptionKey2' | 'RequireEncryptedAssertions'
>;

/**
 * Startup rules: each pair is both or neither, the second only with the first, the
 * certificate parses, the key parses (unencrypted PEM), is RSA of 2048 bits or more and
 * belongs to the certificate; RequireEncryptedAssertions needs a pair. No message quotes
 * a value.
 */
export function encryptionKeyProblems(settings: EncryptionSettings, check: ProviderChecks): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  SLOTS.forEach((slot, index) => {
    const certificate = settings[slot.certificate].trim();
    const key = settings[slot.key].trim();
    if (certificate === '' && key === '') return;
    if (certificate === '' || key === '') {
      const missing = certificate === '' ? slot.certificate : slot.key;
      const other = certificate === '' ? slot.key : slot.certificate;
      problems.push(...check.problem(missing, `is required when ${check.key(other)} is set (a pair: both or neither)`));
      return;
    }
    if (index > 0 && !hasFirstPair(settings)) {
      problems.push(
        ...check.problem(
          slot.certificate,
          `is the second pair of a rollover: set ${check.key('EncryptionCertificate')} first`,
        ),
      );
    }
    const reading = readPemKeyPair(certificate, key);
    if (isPemKeyPairProblem(reading)) {
      problems.push(...check.problem(reading.key === 'certificate' ? slot.certificate : slot.key, reading.reason));
    }
  });
  if (settings.RequireEncryptedAssertions && !hasFirstPair(settings)) {
    problems.push(
      ...check.problem(
        'RequireEncryptedAssertions',
        `needs an encryption key pair: set ${check.key('EncryptionCertificate')} and ${check.key('EncryptionKey')}`,
      ),
    );
  }
  return problems;
}

/** The configured pairs, first pair first (the startup rules have passed them). */
export function readEncryptionKeys(settings: EncryptionSettings): PemKeyPair[] {
  return SLOTS.filter((slot) => settings[slot.certificate].trim() !== '').map((slot) => {
    const reading = readPemKeyPair(settings[slot.certificate], settings[slot.key]);
    if (isPemKeyPairProblem(reading)) {
      throw new GatehouseError('config.invalid', `The Saml2 ${slot.certificate} / ${slot.key} pair cannot be read.`);
    }
    return reading;
  });
}

function hasFirstPair(settings: EncryptionSettings): boolean {
  return settings.EncryptionCertificate.trim() !== '' && settings.EncryptionKey.trim() !== '';
}
