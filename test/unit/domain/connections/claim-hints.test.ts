/**
 * The hints of a stored entry must hold at least what the rules let its connection claim:
 * each entry below is read as the catalog's are (the section reader types it) and checked by
 * the connection rules, and what the connection holds is looked for among its hints.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { catalogDeclarationsNow } from '../../../../src/adapters/connections/catalog-declarations.js';
import { sectionReader } from '../../../../src/adapters/connections/connection-section.js';
import { SecretSealer } from '../../../../src/adapters/secrets/secret-sealer.js';
import { settingsSchema } from '../../../../src/adapters/config/settings-schema.js';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import { claimHints } from '../../../../src/domain/connections/claim-hints.js';
import { issuerKey } from '../../../../src/domain/connections/connection-index.js';
import { readConnection } from '../../../../src/domain/connections/read-connection.js';
import { CONNECTION_RULES } from '../../../support/connection-declarations.js';

const T0 = Date.UTC(2026, 0, 1);
const sealer = new SecretSealer([randomBytes(32).toString('base64')]);
/** An OpenID Connect client's keys, its secret sealed as the API stores it. */
const client = () => ({
  ClientId: 'acme-client',
  ClientSecret: sealer.seal('acme-secret', { connection: 'acme', field: 'ClientSecret' }),
});

/** Stored keys, written as the API or anyone with SQL may have written them. */
const ENTRIES: ReadonlyArray<[label: string, keys: Record<string, unknown>]> = [
  [
    'OpenID Connect',
    {
      Protocol: 'OpenIdConnect',
      Organization: 'acme',
      Domains: ['acme.com'],
      Authority: 'https://login.acme.example',
      ...client(),
    },
  ],
  [
    'keys in another letter case, the issuer with a trailing slash and upper case',
    {
      protocol: 'OpenIdConnect',
      ORGANIZATION: 'acme',
      domains: ['acme.com'],
      authority: 'HTTPS://Login.Acme.Example/',
      ...client(),
    },
  ],
  [
    'SAML by its metadata URL',
    {
      Protocol: 'Saml2',
      Organization: 'acme',
      Domains: ['*.acme.com'],
      EntityId: 'https://app.example/saml',
      MetadataUrl: 'https://idp.acme.example/metadata',
    },
  ],
  [
    'SAML by its entity ID, a number typed as text',
    {
      Protocol: 'Saml2',
      Organization: 'acme',
      Domains: ['acme.com'],
      EntityId: 'https://app.example/saml',
      MetadataUrl: 'https://idp.acme.example/metadata',
      idpentityid: 4242,
    },
  ],
  [
    'listed on the login page by a value typed as true',
    {
      Protocol: 'OpenIdConnect',
      Organization: 'acme',
      Domains: ['acme.com'],
      Authority: 'https://login.acme.example',
      ShowOnLoginPage: 'true',
      ...client(),
    },
  ],
  [
    'listed by 1, in lower case',
    {
      Protocol: 'OpenIdConnect',
      Organization: 'acme',
      Domains: ['acme.com'],
      Authority: 'https://login.acme.example',
      showonloginpage: 1,
      ...client(),
    },
  ],
];

describe('claim hints: what a stored entry could claim, read without checking it', () => {
  let declare: ReturnType<typeof catalogDeclarationsNow>;
  before(async () => {
    declare = catalogDeclarationsNow(sectionReader(await settingsSchema(builtInProviders)), sealer);
  });

  for (const [label, stored] of ENTRIES) {
    it(`holds at least what the rules let the connection claim: ${label}`, () => {
      const keys = stored;
      const domains = ['acme.com'].map((domain) => ({ domain, token: 't', verifiedAt: T0, misses: 0 }));
      const entry = { name: 'Acme', keys, domains, version: 1, updatedAt: T0 };
      const { connection, problems } = readConnection(declare(entry, 'database:acme'), CONNECTION_RULES);
      expect(connection, JSON.stringify(problems)).to.not.equal(undefined);
      const hints = claimHints(keys, ['acme.com'], builtInProviders);
      expect(hints.issuers).to.include(issuerKey(connection!.issuer));
      for (const pattern of connection!.domains) expect(hints.domains).to.include(pattern.replace(/^\*\./, ''));
      if (connection!.showOnLoginPage) expect(hints.listed).to.equal(true);
    });
  }

  it('names no identity provider for a protocol no connection can have, nor lists one shown as false', () => {
    const keys = { Protocol: 'Social1', Authority: 'https://x.example', ShowOnLoginPage: false };
    expect(claimHints(keys, [], builtInProviders)).to.deep.equal({ domains: [], issuers: [], listed: false });
  });
});
