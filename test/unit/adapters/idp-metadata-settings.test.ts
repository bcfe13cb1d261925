import { expect } from 'chai';
import { identityProviderMetadataXml } from '../../../scripts/saml/authn-request.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { singleEntityIdOf } from '../../../src/adapters/saml/metadata-entity-id.js';
import { MAX_IDP_METADATA_BYTES } from '../../../src/adapters/saml/metadata-limits.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { checkSettings, type SettingsContext } from '../../../src/domain/settings/check-settings.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { sectionsOf } from '../../support/provider-sections.js';

const SAML = 'ProjectTemplate:Authentication:Providers:Saml2';
const ENTITY = 'https://idp.acme.example/saml';
const document = identityProviderMetadataXml(ENTITY, 'https://idp.acme.example/sso', [
  makeSigningCredential().certificateBody,
]);
const context: SettingsContext = {
  environment: 'production',
  unknownKeys: [],
  providers: builtInProviders,
  isRoutedPath: (path) => ['/Account/Login', '/'].includes(path),
};

/** The errors of an enabled Saml2 provider with `extra` keys, by key. */
function samlErrors(extra: Record<string, unknown>): string[] {
  const settings = defaultSettings(builtInProviders);
  Object.assign(sectionsOf(settings).Saml2, { Enabled: true, EntityId: 'https://app.example.com/saml', ...extra });
  return checkSettings(settings, context)
    .filter((problem) => problem.severity === 'error' && problem.key.startsWith(SAML))
    .map((problem) => problem.key);
}

describe('Saml2 IdpMetadata: metadata given as a document', () => {
  it('takes the place of MetadataUrl, which is then neither read nor required', () => {
    expect(samlErrors({ IdpMetadata: document, IdpEntityId: ENTITY })).to.deep.equal([]);
    // Without it, MetadataUrl is required as before (the placeholder is no https URL).
    expect(samlErrors({})).to.deep.equal([`${SAML}:MetadataUrl`]);
  });

  it('needs IdpEntityId (the identity provider it binds the connection to), and no single logout', () => {
    expect(samlErrors({ IdpMetadata: document })).to.deep.equal([`${SAML}:IdpEntityId`]);
    expect(samlErrors({ IdpMetadata: document, IdpEntityId: ENTITY, SingleLogout: true })).to.include(
      `${SAML}:SingleLogout`,
    );
  });

  it(`is bounded at ${MAX_IDP_METADATA_BYTES / 1024} KiB`, () => {
    const padded = document.replace('<md:', `<!--${'x'.repeat(MAX_IDP_METADATA_BYTES)}--><md:`);
    expect(samlErrors({ IdpMetadata: padded, IdpEntityId: ENTITY })).to.deep.equal([`${SAML}:IdpMetadata`]);
  });

  it("singleEntityIdOf reads one EntityDescriptor's entityID, and nothing of an aggregate or a refused document", () => {
    expect(singleEntityIdOf(document)).to.equal(ENTITY);
    expect(singleEntityIdOf(`<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"/>`)).to.equal(
      undefined,
    );
    expect(singleEntityIdOf(`<!DOCTYPE x [<!ENTITY a "b">]>${document}`)).to.equal(undefined);
    expect(singleEntityIdOf('not xml <')).to.equal(undefined);
  });
});
