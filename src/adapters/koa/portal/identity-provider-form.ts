import type { KeyProblem } from '../../../application/administration/administration-problem.js';
import type { ConnectionView } from '../../../application/administration/connection-views.js';

/** The protocols a portal sets up, by the connection's `Protocol`. */
export const PORTAL_PROTOCOLS = ['Saml2', 'OpenIdConnect'] as const;
export type PortalProtocol = (typeof PORTAL_PROTOCOLS)[number];

/** The form's fields, named as the connection's keys they become (`Domain` becomes `Domains`). */
export const IDENTITY_PROVIDER_FIELDS = [
  'Protocol',
  'MetadataUrl',
  'IdpMetadata',
  'IdpEntityId',
  'Authority',
  'ClientId',
  'ClientSecret',
  'Domain',
] as const;
export type IdentityProviderField = (typeof IDENTITY_PROVIDER_FIELDS)[number];
export type IdentityProviderFields = Record<IdentityProviderField, string>;

/** A problem shown next to its field (`''`: about the whole form). */
export interface FieldProblem {
  field: IdentityProviderField | '';
  text: string;
}

/** An uploaded metadata document, pasted or read from a file by the page's script: an identity provider's own is a few KiB. */
export const MOST_METADATA_BYTES = 256 * 1024;
/** Every other field: a URL, an identifier, a secret. */
const MOST_FIELD_CHARACTERS = 2048;

/** The fields as given, trimmed (the XML and the secret as they are), an absent or non-text one empty. */
export function fieldsOf(read: (name: string) => unknown): IdentityProviderFields {
  const fields = {} as IdentityProviderFields;
  for (const name of IDENTITY_PROVIDER_FIELDS) {
    const value = read(name);
    const text = typeof value === 'string' ? value : '';
    fields[name] = name === 'IdpMetadata' || name === 'ClientSecret' ? text : text.trim();
  }
  return fields;
}

/** The fields as the page shows them back: never the secret. */
export function shownFields(fields: IdentityProviderFields): IdentityProviderFields {
  return { ...fields, ClientSecret: '' };
}

/** The fields a stored connection (or its draft) fills in, for its page: its keys, never a secret. */
export function fieldsOfConnection(
  keys: Readonly<Record<string, unknown>> = {},
  vendorProtocol: PortalProtocol,
): IdentityProviderFields {
  const text = (key: string) => (typeof keys[key] === 'string' ? keys[key] : '');
  const protocol = text('Protocol');
  return {
    Protocol: isPortalProtocol(protocol) ? protocol : vendorProtocol,
    MetadataUrl: text('IdpMetadata') === '' ? text('MetadataUrl') : '',
    IdpMetadata: text('IdpMetadata'),
    IdpEntityId: text('IdpEntityId'),
    Authority: text('Authority'),
    ClientId: text('ClientId'),
    ClientSecret: '',
    Domain: '',
  };
}

export function isPortalProtocol(value: string): value is PortalProtocol {
  return (PORTAL_PROTOCOLS as readonly string[]).includes(value);
}

/** The keys to write, and what is missing or malformed before anything is asked of the identity provider. */
export interface ConnectionKeys {
  protocol: PortalProtocol | undefined;
  keys: Record<string, unknown>;
  problems: FieldProblem[];
}

/**
 * The connection's keys from the form: the protocol's own, over the stored connection's
 * when it has the same protocol (its other keys are kept: a PUT replaces the whole
 * connection), the entity ID this deployment is known by at the identity provider (the one
 * stored, or `entityId`), and the first domain when the connection is new. A secret left
 * empty keeps the one stored; a change of protocol clears the other protocol's secrets.
 */
export function connectionKeys(
  fields: IdentityProviderFields,
  current: ConnectionView | undefined,
  entityId: string,
): ConnectionKeys {
  const problems: FieldProblem[] = [];
  for (const name of IDENTITY_PROVIDER_FIELDS) {
    const most = name === 'IdpMetadata' ? MOST_METADATA_BYTES : MOST_FIELD_CHARACTERS;
    if (Buffer.byteLength(fields[name]) > most) problems.push({ field: name, text: `${LABELS[name]} is too long.` });
  }
  const protocol = isPortalProtocol(fields.Protocol) ? fields.Protocol : undefined;
  if (!protocol) {
    problems.push({
      field: 'Protocol',
      text: 'Choose SAML or OpenID Connect: the protocol of the application you made.',
    });
    return { protocol, keys: {}, problems };
  }
  const sameProtocol = current?.keys.Protocol === protocol;
  const keys: Record<string, unknown> = sameProtocol ? { ...current.keys } : { Protocol: protocol };
  for (const secret of sameProtocol ? [] : (current?.secretsSet ?? [])) keys[secret] = '';
  if (protocol === 'Saml2') {
    const stored = typeof keys.EntityId === 'string' && keys.EntityId !== '' ? keys.EntityId : entityId;
    keys.EntityId = stored;
    keys.IdpEntityId = fields.IdpEntityId;
    if (fields.IdpMetadata.trim() !== '') {
      keys.IdpMetadata = fields.IdpMetadata;
      delete keys.MetadataUrl;
    } else {
      keys.MetadataUrl = fields.MetadataUrl;
      delete keys.IdpMetadata;
      if (fields.MetadataUrl === '') problems.push({ field: 'MetadataUrl', text: MISSING.MetadataUrl });
    }
  } else {
    keys.Authority = fields.Authority;
    keys.ClientId = fields.ClientId;
    if (fields.ClientSecret !== '') keys.ClientSecret = fields.ClientSecret;
    for (const name of ['Authority', 'ClientId'] as const) {
      if (fields[name] === '') problems.push({ field: name, text: MISSING[name] });
    }
    const secretStored = sameProtocol && current.secretsSet.includes('ClientSecret');
    if (fields.ClientSecret === '' && !secretStored)
      problems.push({ field: 'ClientSecret', text: MISSING.ClientSecret });
  }
  if (!current) {
    if (fields.Domain === '') problems.push({ field: 'Domain', text: MISSING.Domain });
    else keys.Domains = [fields.Domain];
  }
  return { protocol, keys, problems };
}

/** The field a key of the connection is shown next to (`Domains:0` next to the domain). */
export function fieldOfKey(key: string): IdentityProviderField | '' {
  if (key === 'Domains' || key.startsWith('Domains:')) return 'Domain';
  return (IDENTITY_PROVIDER_FIELDS as readonly string[]).includes(key) ? (key as IdentityProviderField) : '';
}

/**
 * A refusal's problem in the portal's words: a sentence as it is, a rule's clause
 * (`must be an https URL`) after the field's name. A conflict with another connection is
 * never passed on as the registry words it: that names the other connection, which may
 * be another organization's.
 */
export function fieldProblemOf(problem: KeyProblem, conflict: boolean): FieldProblem {
  const field = fieldOfKey(problem.key);
  if (conflict) return { field, text: (field === '' ? undefined : CONFLICTS[field]) ?? TAKEN };
  const text = /^[a-z]/.test(problem.message)
    ? `${field === '' ? 'The connection' : LABELS[field]} ${problem.message.replace(/\.$/, '')}.`
    : problem.message;
  return { field, text };
}

/** How each field is named in a sentence. */
export const LABELS: Record<IdentityProviderField, string> = {
  Protocol: 'The protocol',
  MetadataUrl: 'The metadata URL',
  IdpMetadata: 'The metadata file',
  IdpEntityId: "The identity provider's entity ID",
  Authority: 'The issuer (Authority)',
  ClientId: 'The client ID',
  ClientSecret: 'The client secret',
  Domain: 'The domain',
};

const MISSING = {
  MetadataUrl: 'Give the metadata URL your identity provider shows for the application, or choose its metadata file.',
  Authority: 'Give the issuer URL (the Authority) your identity provider shows for the application.',
  ClientId: 'Give the client ID (application ID) of the application you registered.',
  ClientSecret: 'Give the client secret of the application you registered.',
  Domain: "Give your organization's e-mail domain: the part after @ in your people's addresses (example.com).",
} as const;

const TAKEN =
  'Another connection holds this name or this identity provider already. Ask the person who sent you the link.';
const PROVIDER_TAKEN =
  'Another connection uses this identity provider already: one identity provider connects one organization. Make an application of its own for this connection at your identity provider, or ask the person who sent you the link.';
const CONFLICTS: Partial<Record<IdentityProviderField, string>> = {
  MetadataUrl: PROVIDER_TAKEN,
  IdpMetadata: PROVIDER_TAKEN,
  IdpEntityId: PROVIDER_TAKEN,
  Authority: PROVIDER_TAKEN,
  Domain: 'Another connection routes this domain already: a domain routes to one organization.',
};

/** What to do about a problem with each field, shown under it. */
export const FIXES: Record<IdentityProviderField, string> = {
  Protocol: 'Choose the protocol of the application you made at your identity provider.',
  MetadataUrl:
    "Copy the metadata URL again from the application's page at your identity provider (often called Metadata URL or App Federation Metadata Url). It must be reachable from the internet over https.",
  IdpMetadata:
    "Download the metadata file (XML) again from the application's page at your identity provider, and choose it again.",
  IdpEntityId:
    'Leave it empty unless your metadata describes several identity providers; otherwise copy the entity ID (Issuer) exactly as your identity provider shows it.',
  Authority:
    'Copy the issuer URL exactly as your identity provider shows it (for Microsoft Entra ID: https://login.microsoftonline.com/<tenant id>/v2.0). It must be reachable from the internet over https.',
  ClientId: 'Copy the client ID again from the application you registered.',
  ClientSecret: 'Copy the client secret again, or make a new one at your identity provider.',
  Domain: "Give a domain of your organization's e-mail addresses (example.com) that no other organization has proved.",
};
