import { SamlClaimUris } from '../../../domain/claims/claim-mappings.js';
import { connectionBasePath } from '../../../domain/connections/connection.js';
import type { ProviderDefinition } from '../../../domain/providers/provider-definition.js';
import { openIdConnect } from '../../oidc/open-id-connect.js';
import { saml2 } from '../../saml/saml2.js';
import { serviceProviderMetadataXml } from '../../saml/service-provider-metadata.js';
import type { GuideProtocol, ValueName } from './vendor-guides.js';

/** SAML Core 8.3.7: a stable, opaque identifier of the person, the same at every sign-in. */
export const PERSISTENT_NAME_ID = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/** One value the IT admin enters in their identity provider, as "What to enter there" lists it. */
export interface PortalValue {
  name: ValueName;
  label: string;
  value: string;
  /** What it is for, or when it is not needed. */
  hint?: string;
}

/**
 * A connection's keys as stored (ConnectionView.keys), when the portal's connection exists
 * with the protocol shown: what it turned on or off (single logout, a logout path, scopes,
 * its entity ID) changes what is given. Absent, the protocol's defaults.
 */
export type StoredKeys = Readonly<Record<string, unknown>>;

const url = (origin: string, path: string) => new URL(path, origin).href;

/** A path the protocol derives for a connection's instance (`ModulePath`, `CallbackPath` ...), on `origin`. */
function instanceUrl(
  definition: Pick<ProviderDefinition, 'key' | 'instancePaths'>,
  origin: string,
  connection: string,
  key: string,
): string {
  const path = definition.instancePaths?.(connectionBasePath(connection))[key];
  if (path === undefined) throw new Error(`${definition.key} derives no ${key} for a connection`);
  return url(origin, path);
}

/**
 * The service provider's entity ID of a SAML connection written by the portal: its ACS URL,
 * the convention docs/connections.md uses (`PublicOrigin/connections/<name>/saml2/acs`, where
 * a GET serves the metadata). The identity provider's step writes it as `EntityId`.
 */
export function portalEntityId(origin: string, connection: string): string {
  return instanceUrl(saml2, origin, connection, 'ModulePath');
}

/**
 * What the IT admin enters for a connection named `connection` on `origin`
 * (`Hosting:PublicOrigin`): its paths come from its protocol's `instancePaths`, as the
 * registry derives them, so the page and the connection never disagree.
 */
export function serviceProviderValues(
  protocol: GuideProtocol,
  origin: string,
  connection: string,
  keys?: StoredKeys,
): PortalValue[] {
  return protocol === 'Saml2' ? samlValues(origin, connection, keys) : oidcValues(origin, connection, keys);
}

function samlValues(origin: string, connection: string, keys: StoredKeys | undefined): PortalValue[] {
  const acsUrl = instanceUrl(saml2, origin, connection, 'ModulePath');
  const stored = stringKey(keys, 'EntityId')?.trim();
  const entityId = stored ? stored : portalEntityId(origin, connection);
  return [
    { name: 'acsUrl', label: 'ACS URL (Assertion Consumer Service, HTTP-POST)', value: acsUrl },
    { name: 'entityId', label: 'Entity ID (audience)', value: entityId },
    {
      name: 'metadataUrl',
      label: 'Service provider metadata URL',
      value: acsUrl,
      ...(keys
        ? {}
        : { hint: 'It answers once your connection is saved (What it gave you); until then, download the file.' }),
    },
    ...(keys?.SingleLogout === true
      ? [
          {
            name: 'logoutUrl' as const,
            label: 'Single logout URL',
            value: instanceUrl(saml2, origin, connection, 'SingleLogoutPath'),
          },
        ]
      : []),
    {
      name: 'nameIdFormat',
      label: 'NameID format',
      value: PERSISTENT_NAME_ID,
      hint: 'Persistent. An e-mail address works too; a transient NameID does not (it changes at every sign-in).',
    },
    {
      name: 'emailAttribute',
      label: 'E-mail attribute (required)',
      value: SamlClaimUris.EmailAddress,
      hint: "The person's e-mail address: only addresses of your verified domains are let in.",
    },
    { name: 'nameAttribute', label: 'Name attribute', value: SamlClaimUris.Name, hint: 'Recommended.' },
    {
      name: 'groupsAttribute',
      label: 'Groups attribute',
      value: SamlClaimUris.Group,
      hint: 'Only if roles are given by your groups.',
    },
  ];
}

function oidcValues(origin: string, connection: string, keys: StoredKeys | undefined): PortalValue[] {
  const scopes = stringsKey(keys, 'Scopes') ?? openIdConnect.defaults.Scopes;
  // A stored `""` turns a logout path off (docs/connections.md, A connection's paths).
  const on = (key: string) => stringKey(keys, key) !== '';
  return [
    {
      name: 'redirectUri',
      label: 'Redirect URI (sign-in)',
      value: instanceUrl(openIdConnect, origin, connection, 'CallbackPath'),
    },
    {
      name: 'postLogoutRedirectUri',
      label: 'Post-logout redirect URI',
      value: url(origin, '/'),
      hint: 'Where people land after signing out at your identity provider.',
    },
    ...(on('FrontchannelLogoutPath')
      ? [
          {
            name: 'frontchannelLogoutUri' as const,
            label: 'Front-channel logout URL',
            value: instanceUrl(openIdConnect, origin, connection, 'FrontchannelLogoutPath'),
            hint: 'If your identity provider offers it.',
          },
        ]
      : []),
    ...(on('BackchannelLogoutPath')
      ? [
          {
            name: 'backchannelLogoutUri' as const,
            label: 'Back-channel logout URL',
            value: instanceUrl(openIdConnect, origin, connection, 'BackchannelLogoutPath'),
            hint: 'If your identity provider offers it.',
          },
        ]
      : []),
    {
      name: 'scopes',
      label: 'Scopes',
      value: scopes.join(' '),
      hint: 'The ID token or user info must carry the e-mail address.',
    },
  ];
}

/**
 * The service provider's metadata before its connection exists (or while it is not in
 * force): made by the function the connection's own ACS serves it with, from the values
 * the portal shows and the protocol's defaults (signed assertions wanted, no certificate of
 * its own yet, no single logout).
 */
export function portalServiceProviderMetadata(origin: string, connection: string, keys?: StoredKeys): string {
  const values = samlValues(origin, connection, keys);
  const valueOf = (name: ValueName) => values.find((value) => value.name === name)?.value ?? '';
  return serviceProviderMetadataXml({
    entityId: valueOf('entityId'),
    acsUrl: valueOf('acsUrl'),
    wantAssertionsSigned: keys?.RequireSignedAssertions !== false,
    authnRequestsSigned: false,
    signingCertificate: undefined,
    encryptionCertificates: [],
    singleLogoutUrl: undefined,
  });
}

function stringKey(keys: StoredKeys | undefined, key: string): string | undefined {
  const value = keys?.[key];
  return typeof value === 'string' ? value : undefined;
}

function stringsKey(keys: StoredKeys | undefined, key: string): string[] | undefined {
  const value = keys?.[key];
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined;
}
