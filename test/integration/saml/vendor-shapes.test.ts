import { expect } from 'chai';
import { identityProviderMetadataXml } from '../../../scripts/saml/authn-request.js';
import { encodeForPost } from '../../../scripts/saml/saml-response.js';
import { SamlBrowser, SP_ENTITY_ID, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import {
  adfsResponse,
  ENTRA_GROUP_IDS,
  ENTRA_OBJECT_ID,
  ENTRA_PAIRWISE_ID,
  entraResponse,
  googleResponse,
  oktaResponse,
  VENDOR_ISSUERS,
  type Delivery,
  type Vendor,
} from '../../support/vendor-saml-responses.js';

const SAML = 'ProjectTemplate__Authentication__Providers__Saml2__';
const MAPPINGS = 'ProjectTemplate__Authentication__ClaimsTransformation__Mappings__Saml2__';

/** The rows README documents for identity providers that release plain attribute names (Okta, Google Workspace). */
const PLAIN_NAME_ROWS = {
  [`${MAPPINGS}email`]: 'application:email',
  [`${MAPPINGS}firstName`]: 'application:name',
  [`${MAPPINGS}groups`]: 'application:group',
};

interface Case {
  vendor: Vendor;
  build: (to: Delivery) => string;
  settings: Record<string, string>;
  /** Application claims the sign-in must yield, each [type, value]. */
  claims: Array<[string, string]>;
  /** Values that must not become the subject. */
  notSubject?: string[];
}

const cases: Case[] = [
  {
    vendor: 'ADFS',
    build: adfsResponse,
    settings: {},
    claims: [
      ['application:subject', 'ada.admin@contoso.example'],
      ['application:name', 'Ada Admin'],
      ['application:email', 'ada@contoso.example'],
      ['application:role', 'Administrator'],
      ['application:role', 'Domain Users'],
    ],
  },
  {
    vendor: 'Entra ID',
    build: entraResponse,
    settings: {},
    claims: [
      ['application:subject', ENTRA_PAIRWISE_ID],
      ['application:name', 'ada.admin@contoso.example'],
      ['application:email', 'ada@contoso.example'],
      ...ENTRA_GROUP_IDS.map((id): [string, string] => ['application:group', id]),
      ['http://schemas.microsoft.com/identity/claims/objectidentifier', ENTRA_OBJECT_ID],
    ],
  },
  {
    vendor: 'Okta',
    build: oktaResponse,
    settings: { [`${SAML}RequireSignedAssertions`]: 'false', ...PLAIN_NAME_ROWS },
    claims: [
      ['application:subject', 'ada@example.com'],
      ['application:name', 'Ada'],
      ['application:email', 'ada@example.com'],
      ['application:group', 'Everyone'],
      ['application:group', 'Administrators'],
    ],
  },
  {
    vendor: 'Google Workspace',
    build: googleResponse,
    settings: PLAIN_NAME_ROWS,
    claims: [
      ['application:subject', 'ada@example.com'],
      ['application:name', 'Ada'],
      ['application:email', 'ada@example.com'],
      ['application:group', 'admins@example.com'],
      ['application:group', 'staff@example.com'],
    ],
  },
];

/** The claims table of the starter page, as [type, value] rows. */
function claimRows(home: string): Array<[string, string]> {
  return [...home.matchAll(/<tr><td><code>([^<]*)<\/code><\/td><td>([^<]*)<\/td>/g)].map((m) => [
    m[1] ?? '',
    m[2] ?? '',
  ]);
}

describe('SAML2 with responses shaped like ADFS, Entra ID, Okta and Google Workspace (xml-crypto-signed)', function () {
  this.timeout(30_000);
  const running: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of running.splice(0).reverse()) await item.close();
  });

  /** The test identity provider, publishing metadata under the product's own issuer. */
  async function start(vendor: Vendor, settings: Record<string, string>) {
    const idp = await SamlTestIdentityProvider.start();
    running.push(idp);
    idp.metadataOverride = identityProviderMetadataXml(VENDOR_ISSUERS[vendor], idp.ssoUrl, [
      idp.credential.certificateBody,
    ]);
    const app = await startSamlApp(idp, settings);
    running.push(app);
    return { idp, app };
  }

  async function signIn(app: SamlApp, idp: SamlTestIdentityProvider, testCase: Case): Promise<SamlBrowser> {
    const browser = new SamlBrowser();
    const request = await browser.challenge(app);
    const xml = testCase.build({
      issuer: VENDOR_ISSUERS[testCase.vendor],
      audience: SP_ENTITY_ID,
      acsUrl: request.acsUrl,
      inResponseTo: request.id,
      credential: idp.credential,
    });
    const response = await browser.post(app.acsUrl, {
      SAMLResponse: encodeForPost(xml),
      RelayState: request.relayState ?? '',
    });
    expect(response.status, (await response.clone().text()).slice(0, 400)).to.equal(302);
    return browser;
  }

  for (const testCase of cases) {
    it(`${testCase.vendor}: signs in and maps to the application claims`, async () => {
      const { idp, app } = await start(testCase.vendor, testCase.settings);
      const browser = await signIn(app, idp, testCase);
      const rows = claimRows(await (await browser.get(`${app.url}/`)).text());
      expect(rows).to.deep.include.members(testCase.claims);
      const subjects = rows.filter(([type]) => type === 'application:subject');
      expect(subjects, 'exactly one subject').to.have.length(1);
    });
  }

  it('ADFS: the transient NameID never becomes a claim (the UPN names the user)', async () => {
    const adfs = cases.find((c) => c.vendor === 'ADFS') as Case;
    const { idp, app } = await start('ADFS', {});
    const browser = await signIn(app, idp, adfs);
    const rows = claimRows(await (await browser.get(`${app.url}/`)).text());
    expect(rows.filter(([type]) => type.endsWith('/nameidentifier'))).to.deep.equal([]);
  });

  it('Okta with its Response signed only: refused under the default RequireSignedAssertions (idp.assertion_unsigned)', async () => {
    const okta = cases.find((c) => c.vendor === 'Okta') as Case;
    const { idp, app } = await start('Okta', PLAIN_NAME_ROWS);
    const browser = new SamlBrowser();
    const request = await browser.challenge(app);
    const xml = okta.build({
      issuer: VENDOR_ISSUERS.Okta,
      audience: SP_ENTITY_ID,
      acsUrl: request.acsUrl,
      inResponseTo: request.id,
      credential: idp.credential,
    });
    const response = await browser.post(app.acsUrl, {
      SAMLResponse: encodeForPost(xml),
      RelayState: request.relayState ?? '',
    });
    expect(response.status).to.equal(400);
    expect(await response.text()).to.contain('<code>idp.assertion_unsigned</code>');
  });
});
