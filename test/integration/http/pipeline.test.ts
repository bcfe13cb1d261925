import { expect } from 'chai';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

describe('HTTP pipeline', () => {
  let running: RunningGatehouse;
  before(async () => {
    running = await startGatehouse();
  });
  after(() => running.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(running.url + path, { headers, redirect: 'manual' });

  for (const path of ['/health', '/health/live', '/health/ready']) {
    it(`answers ${path} anonymously, without a cookie, uncached, with a minimal body`, async () => {
      const response = await get(path);
      expect(response.status).to.equal(200);
      expect(response.headers.get('set-cookie')).to.equal(null);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      const body = (await response.json()) as { status: string };
      expect(['live', 'ready', 'healthy']).to.include(body.status);
      expect(JSON.stringify(body)).not.to.match(/version|host|redis:|127\.0\.0\.1/i);
    });
  }

  it('sets the security headers on every response, without HSTS outside production', async () => {
    for (const path of ['/health/live', '/styles.css', '/no-such-page']) {
      const response = await get(path);
      expect(response.headers.get('content-security-policy'))
        .to.contain("script-src 'self'")
        .and.contain("frame-ancestors 'none'");
      expect(response.headers.get('content-security-policy')).not.to.contain('unsafe-inline');
      expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(response.headers.get('x-frame-options')).to.equal('DENY');
      expect(response.headers.get('referrer-policy')).to.equal('strict-origin-when-cross-origin');
      expect(response.headers.get('strict-transport-security')).to.equal(null);
    }
  });

  it('serves static files from public/ before routing', async () => {
    const response = await get('/styles.css');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.contain('text/css');
    expect(response.headers.get('set-cookie')).to.equal(null);
  });

  it('does not serve files from outside public/', async () => {
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/config/appsettings.json', '/.env']) {
      const response = await get(path);
      expect(response.status, path).to.be.oneOf([400, 403, 404]);
      expect(await response.text()).not.to.contain('"dependencies"');
    }
  });

  it('answers unmatched routes 404 through the error page', async () => {
    const response = await get('/no-such-page');
    expect(response.status).to.equal(404);
    expect(response.headers.get('content-type')).to.contain('text/html');
    const html = await response.text();
    expect(html).to.contain('Page not found').and.contain('<link rel="stylesheet" href="/styles.css">');
  });

  it('answers JSON clients and /api/ paths with problem details', async () => {
    for (const [path, headers] of [
      ['/no-such-page', { accept: 'application/json' }],
      ['/api/no-such-thing', {}],
    ] as const) {
      const response = await get(path, headers);
      expect(response.status).to.equal(404);
      expect(response.headers.get('content-type')).to.equal('application/problem+json; charset=utf-8');
      expect(await response.json()).to.deep.equal({ type: 'about:blank', title: 'Page not found', status: 404 });
    }
  });

  const errorPages: Array<[string, number]> = [
    ['/Home/Error', 500],
    ['/Home/Error/404', 404],
    ['/Home/Error/503', 503],
    ['/Home/Error/403', 403],
    ['/Home/Error/200', 404],
    ['/Home/Error/abc', 404],
    ['/home/error/400', 400],
  ];
  for (const [path, status] of errorPages) {
    it(`renders ${path} anonymously as a ${status} page`, async () => {
      const response = await get(path);
      expect(response.status).to.equal(status);
      expect(await response.text()).to.contain(`<p class="status-code">${status}</p>`);
    });
  }

  it('logs one line per request, never a sensitive query value', async () => {
    await get(
      '/no-such-page?code=SENTINEL-CODE&state=SENTINEL-STATE&SAMLResponse=SENTINEL-SAML&provider=OpenIdConnect',
    );
    const line = running.logs.find((l) => l.includes('/no-such-page?code='));
    expect(line).to.contain('provider=OpenIdConnect');
    expect(running.logs.join('\n')).not.to.contain('SENTINEL');
  });
});
