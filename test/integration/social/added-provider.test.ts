/**
 * Adding a provider is its adapter, one record, a vendor-shaped server and its
 * contract-suite registration. This fifth social provider exists only here: its vendor
 * (tens of lines), its record, an Amazon-shaped server, and the contract suite, with
 * nothing else of Gatehouse changed. Its settings, their types and secrecy, its startup
 * rules, its claim mappings and its place on the login page all come from the record.
 */
import { expect } from 'chai';
import { startAmazonShapedServer } from '../../../scripts/vendor-servers/login-with-amazon.js';
import { amazonProfileClaims } from '../../../src/adapters/amazon/amazon-profile.js';
import { socialProvider } from '../../../src/adapters/oauth2/social-provider.js';
import type { SocialVendor } from '../../../src/adapters/oauth2/social-vendor.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { StartupError } from '../../../src/bootstrap/startup-error.js';
import { ClaimTypes } from '../../../src/domain/claims/claim-types.js';
import { identityProviderContract } from '../identity-provider-contract.js';
import { AMAZON, socialHarness } from '../../support/social-harness.js';
import { startGatehouse } from '../../support/start-gatehouse.js';

/** The vendor: where its endpoints are, how it spells scopes, how it reads the user. */
const exampleAccounts: SocialVendor = {
  endpoints: {
    AuthorizationEndpoint: 'https://accounts.example.com/authorize',
    TokenEndpoint: 'https://accounts.example.com/token',
    UserInformationEndpoint: 'https://accounts.example.com/me',
  },
  scopes: (configured) => (configured.includes('profile') ? [...configured] : ['profile', ...configured]),
  readUser: (api) => api.getJson(api.endpoint('UserInformationEndpoint'), {}, amazonProfileClaims),
  refreshes: false,
};

/** The record: everything else Gatehouse needs to know of the provider. */
const social4 = socialProvider({
  key: 'Social4',
  vendorName: 'Example Accounts',
  callbackPath: '/signin-social4',
  scopes: ['profile'],
  claimMappings: [
    { source: 'user_id', target: ClaimTypes.Subject },
    { source: 'name', target: ClaimTypes.Name },
    { source: 'email', target: ClaimTypes.Email },
  ],
  vendor: async () => exampleAccounts,
});

identityProviderContract(
  socialHarness({
    key: 'Social4',
    vendor: 'Amazon',
    start: startAmazonShapedServer,
    accounts: AMAZON.accounts,
    record: social4,
  }),
);

describe('a provider added through its record alone (Social4)', () => {
  const providers = [...builtInProviders, social4];

  it('is listed on the login page under its vendor name', async () => {
    const app = await startGatehouse(
      {
        ProjectTemplate__Authentication__Providers__Social4__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Social4__ClientId: 'client',
        ProjectTemplate__Authentication__Providers__Social4__ClientSecret: 'SENTINEL-social4-secret-5e1d',
      },
      { providers },
    );
    try {
      const page = await (await fetch(`${app.url}/Account/Login`)).text();
      expect(page).to.contain('Example Accounts');
      expect(page).to.contain('href="/External/Challenge?provider=Social4&amp;returnUrl=%2F"');
    } finally {
      await app.close();
    }
  });

  it('gets the startup rules of its record: a missing client secret and a plain-http endpoint are named', async () => {
    const failure = await startGatehouse(
      {
        ProjectTemplate__Authentication__Providers__Social4__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Social4__ClientId: 'client',
        ProjectTemplate__Authentication__Providers__Social4__TokenEndpoint: 'http://accounts.example.com/token',
      },
      { providers },
    ).then(
      () => expect.fail('started without a client secret'),
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(StartupError);
    const keys = (failure as StartupError).problems.map((problem) => problem.key);
    expect(keys).to.have.members([
      'ProjectTemplate:Authentication:Providers:Social4:ClientSecret',
      'ProjectTemplate:Authentication:Providers:Social4:TokenEndpoint',
    ]);
  });

  it('is an unknown key for a build that does not declare it', async () => {
    const failure = await startGatehouse({ ProjectTemplate__Authentication__Providers__Social4__Enabled: 'true' }).then(
      () => expect.fail('started with an undeclared provider'),
      (error: unknown) => error,
    );
    expect((failure as StartupError).problems.map((problem) => problem.key)).to.deep.equal([
      'ProjectTemplate:Authentication:Providers:Social4',
    ]);
  });
});
