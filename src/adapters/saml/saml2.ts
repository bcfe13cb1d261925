import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { SamlAttributeOids, SamlClaimUris } from '../../domain/claims/claim-mappings.js';
import { isLocalReturnUrl } from '../../domain/return-url.js';
import { provider } from '../provider-record.js';
import { encryptionKeyProblems, readEncryptionKeys } from './encryption-keys.js';
import {
  DEFAULT_METADATA_MAX_BYTES,
  MAX_IDP_METADATA_BYTES,
  MAX_METADATA_MAX_BYTES,
  MIN_METADATA_MAX_BYTES,
} from './metadata-limits.js';
import { readPemCertificate } from './signing-certificate.js';
import type { Saml2Settings } from './saml2-settings.js';
import { signingKeyRules } from './signing-key-rules.js';
import { isPemKeyPairProblem, readPemKeyPair, type PemKeyPair } from '../pem-key-pair.js';
import { GatehouseError } from '../../domain/errors.js';
import type { ProviderChecks } from '../../domain/providers/provider-definition.js';
import type { SettingsProblem } from '../../domain/settings/problem.js';

const { Subject, Name, Email, Role, Group } = ClaimTypes;

/** Saml2: a SAML 2.0 identity provider, known by its metadata. */
export const saml2 = provider<Saml2Settings>({
  key: 'Saml2',
  callbackKey: 'ModulePath',
  defaults: {
    Enabled: false,
    Scheme: 'Saml2',
    DisplayName: 'SAML2',
    EntityId: '<entity_id_url>',
    MetadataUrl: '<idp_metadata_url>',
    IdpMetadata: '',
    ModulePath: '/Saml2/Acs',
    LoadMetadata: true,
    RequireSignedAssertions: true,
    ValidateCertificates: true,
    EncryptionCertificate: '',
    EncryptionKey: '',
    EncryptionCertificate2: '',
    EncryptionKey2: '',
    RequireEncryptedAssertions: false,
    IdpEntityId: '',
    MetadataSigningCertificate: '',
    MetadataMaxBytes: DEFAULT_METADATA_MAX_BYTES,
    AllowIdpInitiated: false,
    IdpInitiatedReturnUrl: '/',
    SigningCertificate: '',
    SigningKey: '',
    SignAuthnRequests: false,
    SingleLogout: false,
    SingleLogoutPath: '/Saml2/Logout',
  },
  kinds: {
    Enabled: 'boolean',
    Scheme: 'string',
    DisplayName: 'string',
    EntityId: 'string',
    MetadataUrl: 'string',
    IdpMetadata: 'string',
    ModulePath: 'string',
    LoadMetadata: 'boolean',
    RequireSignedAssertions: 'boolean',
    ValidateCertificates: 'boolean',
    EncryptionCertificate: 'string',
    EncryptionKey: 'secret',
    EncryptionCertificate2: 'string',
    EncryptionKey2: 'secret',
    RequireEncryptedAssertions: 'boolean',
    IdpEntityId: 'string',
    MetadataSigningCertificate: 'string',
    MetadataMaxBytes: 'number',
    AllowIdpInitiated: 'boolean',
    IdpInitiatedReturnUrl: 'string',
    SigningCertificate: 'string',
    SigningKey: 'secret',
    SignAuthnRequests: 'boolean',
    SingleLogout: 'boolean',
    SingleLogoutPath: 'string',
  },
  // A connection's paths, under its own base (docs/connections.md): the ACS also serves its SP metadata.
  instancePaths: (base) => ({ ModulePath: `${base}/saml2/acs`, SingleLogoutPath: `${base}/saml2/logout` }),
  // An aggregate's identity provider is its IdpEntityId; otherwise the metadata names one.
  declaredIssuer: (settings) =>
    settings.IdpEntityId.trim() === ''
      ? { key: 'MetadataUrl', value: settings.MetadataUrl }
      : { key: 'IdpEntityId', value: settings.IdpEntityId },
  ownedPaths: (settings): Record<string, string> =>
    settings.SingleLogout ? { SingleLogoutPath: settings.SingleLogoutPath } : {},
  // The NameID first; eduPersonPrincipalName and the UPN only when no (persistent, e-mail ...)
  // NameID names the user. Names fall back from the full name to the display name, then to
  // the given name or the surname alone. Multi-valued attributes (roles, groups) keep every value.
  claimMappings: [
    { source: SamlClaimUris.NameIdentifier, target: Subject },
    { source: SamlAttributeOids.EduPersonPrincipalName, target: Subject, fallback: true },
    { source: SamlClaimUris.Upn, target: Subject, fallback: true },
    { source: SamlClaimUris.Name, target: Name },
    { source: SamlAttributeOids.DisplayName, target: Name, fallback: true },
    { source: SamlClaimUris.GivenName, target: Name, fallback: true },
    { source: SamlAttributeOids.GivenName, target: Name, fallback: true },
    { source: SamlClaimUris.Surname, target: Name, fallback: true },
    { source: SamlAttributeOids.Surname, target: Name, fallback: true },
    { source: SamlClaimUris.EmailAddress, target: Email },
    { source: SamlAttributeOids.Mail, target: Email, fallback: true },
    { source: SamlClaimUris.NameIdEmailAddress, target: Email, fallback: true },
    { source: SamlClaimUris.Role, target: Role },
    { source: SamlClaimUris.Group, target: Group },
    { source: SamlClaimUris.Groups, target: Group },
  ],
  rules: (settings, check) => [
    ...check.absoluteUrl('EntityId', settings.EntityId),
    ...(!settings.LoadMetadata
      ? check.problem('LoadMetadata', 'must be true: the identity provider metadata is read from MetadataUrl')
      : settings.IdpMetadata.trim() === ''
        ? check.httpsUrl('MetadataUrl', settings.MetadataUrl)
        : givenMetadataProblems(settings, check)),
    ...encryptionKeyProblems(settings, check),
    ...(settings.MetadataSigningCertificate.trim() === '' || readPemCertificate(settings.MetadataSigningCertificate)
      ? []
      : check.problem('MetadataSigningCertificate', 'must be one PEM certificate (-----BEGIN CERTIFICATE----- ...)')),
    ...(Number.isInteger(settings.MetadataMaxBytes) &&
    settings.MetadataMaxBytes >= MIN_METADATA_MAX_BYTES &&
    settings.MetadataMaxBytes <= MAX_METADATA_MAX_BYTES
      ? []
      : check.problem(
          'MetadataMaxBytes',
          `must be a whole number of bytes from ${MIN_METADATA_MAX_BYTES} to ${MAX_METADATA_MAX_BYTES}`,
        )),
    ...(isLocalReturnUrl(settings.IdpInitiatedReturnUrl)
      ? []
      : check.problem('IdpInitiatedReturnUrl', 'must be a local URL ("/" or "/path", no scheme or host)')),
    ...(settings.AllowIdpInitiated && check.environment === 'production'
      ? check.warning(
          'AllowIdpInitiated',
          'is true: anyone holding a valid response of your identity provider (their own, for example) can sign a visitor in to their account (login CSRF); allow IdP-initiated sign-in only if your users need portal tiles',
        )
      : []),
    ...signingKeyRules(settings, check),
  ],
  async createAdapter(settings, context) {
    const [{ installSamlSchemaValidation }, { SamlIdentityProvider }] = await Promise.all([
      import('./saml-schema-validation.js'),
      import('./saml-identity-provider.js'),
    ]);
    const validateSchema = await installSamlSchemaValidation(context.rootDir);
    const signing = signingPair(settings);
    return new SamlIdentityProvider({
      info: context.info,
      settings,
      acsUrl: new URL(context.info.callbackPath, context.publicOrigin).href,
      timeoutMs: context.timeoutMs,
      ...(context.outbound ? { observeRequest: context.outbound(context.info.key) } : {}),
      ...(context.fetch ? { fetch: context.fetch } : {}),
      sessionStore: context.sessionStore,
      replayRecords: context.replayRecords,
      logger: context.logger,
      clock: context.clock,
      validateSchema,
      encryptionKeys: readEncryptionKeys(settings),
      authnContextMethods: context.authnContextMethods,
      ...(signing ? { signing } : {}),
      ...(settings.SingleLogout
        ? { singleLogoutUrl: new URL(settings.SingleLogoutPath, context.publicOrigin).href }
        : {}),
    });
  },
});

/** The signing pair the startup rules accepted (signing-key-rules.ts), or undefined when none is configured. */
function signingPair(settings: Saml2Settings): PemKeyPair | undefined {
  if (settings.SigningCertificate.trim() === '' || settings.SigningKey.trim() === '') return undefined;
  const pair = readPemKeyPair(settings.SigningCertificate.trim(), settings.SigningKey.trim());
  if (isPemKeyPairProblem(pair)) {
    throw new GatehouseError(
      'config.invalid',
      `The SAML ${pair.key === 'certificate' ? 'SigningCertificate' : 'SigningKey'} ${pair.reason}.`,
    );
  }
  return pair;
}

/**
 * A metadata document given as a value (`IdpMetadata`): bounded, and naming its identity
 * provider in `IdpEntityId` (the one connection per identity provider is bound by it, and
 * the reader refuses a document describing another). Single logout needs `MetadataUrl`:
 * the logout page may send the browser only to the origin fixed at start, the metadata's.
 */
function givenMetadataProblems(settings: Saml2Settings, check: ProviderChecks): SettingsProblem[] {
  return [
    ...(Buffer.byteLength(settings.IdpMetadata) <= MAX_IDP_METADATA_BYTES
      ? []
      : check.problem(
          'IdpMetadata',
          `must be at most ${MAX_IDP_METADATA_BYTES / 1024} KiB: an identity provider's own metadata (an aggregate is fetched from MetadataUrl)`,
        )),
    ...(settings.IdpEntityId.trim() !== ''
      ? []
      : check.problem(
          'IdpEntityId',
          'must be set with IdpMetadata: the entityID of the identity provider it describes',
        )),
    ...(settings.SingleLogout
      ? check.problem('SingleLogout', 'must be false with IdpMetadata: single logout needs MetadataUrl')
      : []),
  ];
}
