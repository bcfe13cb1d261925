import { expect } from 'chai';
import { social2 } from '../../../src/adapters/amazon/social2.js';
import { social3 } from '../../../src/adapters/github/social3.js';
import { social1 } from '../../../src/adapters/microsoft/social1.js';
import { vendorScopes } from '../../../src/adapters/oauth2/vendor-scopes.js';
import type { IdentityProvider } from '../../../src/application/ports/identity-provider.js';
import { adapterOf } from '../../support/adapter-of.js';

const RECORDS = { Social1: social1, Social2: social2, Social3: social3 };

/** The adapter of a provider with the given Scopes, built from its record as bootstrap builds it (constructing contacts nobody). */
function adapter(key: 'Social1' | 'Social2' | 'Social3', scopes: string[]): Promise<IdentityProvider> {
  return adapterOf(RECORDS[key], { ClientId: 'id', ClientSecret: 'secret', Scopes: scopes });
}

async function requested(key: 'Social1' | 'Social2' | 'Social3', scopes: string[]) {
  const url = new URL((await (await adapter(key, scopes)).beginChallenge()).redirectUrl);
  return { endpoint: `${url.origin}${url.pathname}`, scope: url.searchParams.get('scope') };
}

describe('scope translation: generic starter names to each vendor, anything else verbatim', () => {
  const cases: Array<[key: 'Social1' | 'Social2' | 'Social3', configured: string[], sent: string | null]> = [
    ['Social1', [], 'User.Read'],
    ['Social1', ['profile', 'email'], 'User.Read'],
    ['Social1', ['email', 'offline_access'], 'User.Read offline_access'],
    ['Social1', ['Calendars.Read'], 'User.Read Calendars.Read'],
    ['Social2', ['profile', 'email'], 'profile'],
    ['Social2', [], 'profile'],
    ['Social2', ['postal_code'], 'profile postal_code'],
    ['Social2', ['profile:user_id'], 'profile:user_id'],
    ['Social3', ['profile', 'email'], 'read:user user:email'],
    ['Social3', ['email'], 'user:email'],
    ['Social3', ['profile', 'repo'], 'read:user repo'],
    ['Social3', ['read:user user:email'], 'read:user user:email'],
    ['Social3', [], null],
  ];
  for (const [key, configured, sent] of cases) {
    it(`${key}: Scopes ${JSON.stringify(configured)} asks for ${JSON.stringify(sent)}`, async () => {
      expect((await requested(key, configured)).scope).to.equal(sent);
    });
  }

  it('keeps order and drops repeats; a name it does not know passes unchanged', () => {
    expect(vendorScopes(['b', 'profile', 'b', ' a '], { profile: ['p1', 'p2'] }, ['p2'])).to.deep.equal([
      'p2',
      'b',
      'p1',
      'a',
    ]);
  });
});

describe("the vendors' production endpoints, when no override is configured", () => {
  const production: Array<['Social1' | 'Social2' | 'Social3', string]> = [
    ['Social1', 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize'],
    ['Social2', 'https://www.amazon.com/ap/oa'],
    ['Social3', 'https://github.com/login/oauth/authorize'],
  ];
  for (const [key, endpoint] of production) {
    it(`${key} sends the browser to ${endpoint}`, async () => {
      expect((await requested(key, [])).endpoint).to.equal(endpoint);
    });
  }

  it('shows the vendor name when DisplayName is empty, the configured one otherwise', async () => {
    expect((await adapter('Social1', [])).info.displayName).to.equal('Microsoft');
    expect((await adapter('Social2', [])).info.displayName).to.equal('Amazon');
    expect((await adapter('Social3', [])).info.displayName).to.equal('GitHub');
    const named = await adapterOf(social3, { ClientId: 'id', ClientSecret: 'secret', DisplayName: 'Company GitHub' });
    expect(named.info.displayName).to.equal('Company GitHub');
  });
});
