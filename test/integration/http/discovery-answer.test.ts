/**
 * `POST /External/Discover` in a browser cannot be a redirect to the identity provider:
 * the login page's CSP `form-action` also governs the redirects that follow a form's
 * submission, and a connection's provider is another origin (the browser suite shows
 * Chromium blocking it). A browser's navigation gets a page that moves on by itself; any
 * other client the 302.
 */
import { expect } from 'chai';
import { request } from 'node:http';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const CONNECTION = 'ProjectTemplate__Authentication__Connections__Globex__';

interface Answer {
  status: number;
  location: string | undefined;
  cacheControl: string | undefined;
  text: string;
}

describe('POST /External/Discover: what a browser and another client are answered', () => {
  let provider: DemoIdentityProvider;
  let app: RunningGatehouse;

  before(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    provider = await startDemoIdentityProvider({
      clients: [
        {
          clientId: 'globex-client',
          clientSecret: 'globex-secret',
          redirectUris: [`${origin}/connections/globex/signin-oidc`],
          postLogoutRedirectUris: [`${origin}/`],
        },
      ],
    });
    app = await startGatehouse(
      {
        ProjectTemplate__Hosting__PublicOrigin: origin,
        ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
        [`${CONNECTION}Protocol`]: 'OpenIdConnect',
        [`${CONNECTION}Organization`]: 'globex',
        [`${CONNECTION}Authority`]: provider.issuer,
        [`${CONNECTION}ClientId`]: 'globex-client',
        [`${CONNECTION}ClientSecret`]: 'globex-secret',
        [`${CONNECTION}Domains__0`]: 'globex.test',
        // Not pushed, so that the authorization request's login_hint can be read from the answer.
        [`${CONNECTION}UsePushedAuthorization`]: 'false',
      },
      { port },
    );
  });
  after(async () => {
    await app?.close();
    await provider?.close();
  });

  /**
   * The login page's e-mail form, posted with exactly `headers` besides the cookie and the
   * form's type (node:http: fetch would add a Sec-Fetch-Mode of its own).
   */
  async function discover(headers: Record<string, string>): Promise<Answer> {
    const browser = new TestBrowser();
    const page = await (await browser.get(`${app.url}/Account/Login`)).text();
    const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? expect.fail('no e-mail form on the login page');
    const body = new URLSearchParams({ _csrf: token, email: 'grace@globex.test', returnUrl: '/' }).toString();
    const url = `${app.url}/External/Discover`;
    return new Promise((resolve, reject) => {
      const sent = request(url, {
        method: 'POST',
        headers: {
          ...headers,
          cookie: browser.jar.header(url) ?? '',
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      });
      sent.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            location: response.headers.location,
            cacheControl: response.headers['cache-control'],
            text,
          }),
        );
      });
      sent.on('error', reject);
      sent.end(body);
    });
  }

  /** The provider's authorization endpoint the answer sends the browser to. */
  function expectAuthorizationUrl(url: string): void {
    const location = new URL(url);
    expect(location.origin).to.equal(new URL(provider.issuer).origin);
    expect(location.searchParams.get('login_hint')).to.equal('grace@globex.test');
  }

  it('a browser navigating (Sec-Fetch-Mode: navigate): a page that moves on to the provider, a meta refresh and a link', async () => {
    const answer = await discover({ 'sec-fetch-mode': 'navigate', accept: 'text/html' });
    expect(answer.status).to.equal(200);
    expect(answer.location).to.equal(undefined);
    expect(answer.cacheControl).to.contain('no-store');
    const html = answer.text;
    const refresh = /<meta http-equiv="refresh" content="0; url=([^"]+)">/.exec(html)?.[1];
    const link = /<a class="button" href="([^"]+)">Continue<\/a>/.exec(html)?.[1];
    expect(refresh, 'a meta refresh').to.be.a('string');
    expect(link).to.equal(refresh);
    expectAuthorizationUrl((refresh ?? '').replaceAll('&amp;', '&'));
  });

  it('a browser sending no Fetch Metadata, asking for HTML: the same page', async () => {
    const answer = await discover({ accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' });
    expect(answer.status).to.equal(200);
    expect(answer.text).to.contain('<meta http-equiv="refresh"');
  });

  it('any other client (a script, a program: here Sec-Fetch-Mode cors): the 302 to the provider itself', async () => {
    const answer = await discover({ 'sec-fetch-mode': 'cors', accept: '*/*' });
    expect(answer.status).to.equal(302);
    expectAuthorizationUrl(answer.location ?? '');
  });
});
