import { expect } from 'chai';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

/** Settings enabling a social provider with the vendor's production endpoints (constructing it contacts nobody). */
function enable(key: string, extra: Record<string, string> = {}): Record<string, string> {
  const prefix = `ProjectTemplate__Authentication__Providers__${key}__`;
  return {
    [`${prefix}Enabled`]: 'true',
    [`${prefix}ClientId`]: `client-${key}`,
    [`${prefix}ClientSecret`]: `SENTINEL-secret-${key}-4d1f`,
    ...Object.fromEntries(Object.entries(extra).map(([name, value]) => [`${prefix}${name}`, value])),
  };
}

/** The providers the login page offers, as [display name, scheme]. */
async function offered(app: RunningGatehouse): Promise<string[][]> {
  const html = await (await fetch(`${app.url}/Account/Login`)).text();
  return [
    ...html.matchAll(/href="\/External\/Challenge\?provider=([^&]+)&amp;returnUrl=%2F">Sign in with ([^<]+)</g),
  ].map(([, scheme, name]) => [name ?? '', scheme ?? '']);
}

describe('the login page lists exactly the enabled social providers', function () {
  this.timeout(10_000);
  const apps: RunningGatehouse[] = [];
  after(() => Promise.all(apps.map((app) => app.close())));

  async function start(env: Record<string, string>) {
    const app = await startGatehouse({ ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1:9', ...env });
    apps.push(app);
    return app;
  }

  it('Social1 and Social3 enabled: Microsoft and GitHub, not Amazon', async () => {
    const app = await start({ ...enable('Social1'), ...enable('Social3') });
    expect(await offered(app)).to.deep.equal([
      ['Microsoft', 'Social1'],
      ['GitHub', 'Social3'],
    ]);
  });

  it('all three, with a configured DisplayName and Scheme for one', async () => {
    const app = await start({
      ...enable('Social1'),
      ...enable('Social2', { DisplayName: 'Amazon account', Scheme: 'amazon' }),
      ...enable('Social3'),
    });
    expect(await offered(app)).to.deep.equal([
      ['Microsoft', 'Social1'],
      ['Amazon account', 'amazon'],
      ['GitHub', 'Social3'],
    ]);
    const challenge = await fetch(`${app.url}/External/Challenge?provider=amazon`, { redirect: 'manual' });
    expect(challenge.headers.get('location')).to.match(/^https:\/\/www\.amazon\.com\/ap\/oa\?/);
  });

  it('none enabled: no provider, and Social2 still disabled when only its keys are set', async () => {
    const app = await start({
      ProjectTemplate__Authentication__Providers__Social2__ClientId: 'client',
      ProjectTemplate__Authentication__Providers__Social2__ClientSecret: 'SENTINEL-secret-5e2a',
    });
    expect(await offered(app)).to.deep.equal([]);
    const challenge = await fetch(`${app.url}/External/Challenge?provider=Social2`, { redirect: 'manual' });
    expect(challenge.status).to.equal(400);
  });
});
