import { expect } from 'chai';
import type { AdminHarness } from './admin-api.js';
import { TestBrowser } from './oidc-app.js';

/** The API path of an organization's setup links. */
export const setupLinksPath = (organization: string) => `/api/admin/organizations/${organization}/setup-links`;

/** Makes a setup link through the administration API; its URL. */
export async function makeSetupLink(
  harness: Pick<AdminHarness, 'api'>,
  organization: string,
  body: object = {},
): Promise<string> {
  const made = await harness.api('POST', setupLinksPath(organization), body);
  expect(made.status, await made.clone().text()).to.equal(201);
  return ((await made.json()) as { url: string }).url;
}

/** An IT admin's browser in a portal session: the link's page, then its button (a POST from this site). */
export class PortalBrowser extends TestBrowser {
  private constructor(private readonly appUrl: string) {
    super();
  }

  static async open(
    harness: Pick<AdminHarness, 'api' | 'app'>,
    organization: string,
    body: object = {},
  ): Promise<PortalBrowser> {
    const url = await makeSetupLink(harness, organization, body);
    const browser = new PortalBrowser(harness.app.url);
    expect((await browser.get(url)).status).to.equal(200);
    const opened = await browser.jar.fetch(url, { method: 'POST', headers: { origin: harness.app.url } });
    expect(opened.status).to.equal(303);
    expect(opened.headers.get('location')).to.equal('/setup/portal');
    return browser;
  }

  /** A portal page's text. */
  async page(path: string): Promise<{ status: number; text: string }> {
    const response = await this.get(`${this.appUrl}${path}`);
    return { status: response.status, text: await response.text() };
  }

  /** The portal session's anti-forgery token, from one of its pages. */
  async csrf(path = '/setup/portal'): Promise<string> {
    const token = /name="_csrf" value="([^"]+)"/.exec((await this.page(path)).text)?.[1];
    if (!token) throw new Error(`no form on ${path}`);
    return token;
  }

  /** Posts a portal form as its page does: this site's origin and the session's token. */
  async submit(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const token = await this.csrf();
    return this.post(`${this.appUrl}${path}`, { _csrf: token, ...form }, { origin: this.appUrl, ...headers });
  }

  /** Posts JSON as the portal's script does. */
  async submitJson(path: string, body: Record<string, unknown>, withToken = true): Promise<Response> {
    const token = withToken ? { _csrf: await this.csrf() } : {};
    return this.jar.fetch(`${this.appUrl}${path}`, {
      method: 'POST',
      body: JSON.stringify({ ...token, ...body }),
      headers: { origin: this.appUrl, 'content-type': 'application/json', accept: 'application/json' },
    });
  }

  /** Whether the application's own session cookie was ever set in this browser (the portal never sets it). */
  get signedIn(): boolean {
    return this.sessionToken(this.appUrl) !== undefined;
  }
}
