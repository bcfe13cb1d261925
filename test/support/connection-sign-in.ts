import { discover } from './connection-app.js';
import { driveOidcLogin } from './drive-oidc-login.js';
import { TestBrowser } from './oidc-app.js';
import { within } from './within.js';

/** A person signed in through an organization's connection, in a browser of their own. */
export interface SignedInPerson {
  browser: TestBrowser;
  /** The application's page of the organization, as that person's browser asks it (JSON). */
  appInfo(): Promise<Response>;
  /** Fails unless the person's session is refused within a few seconds. */
  signedOut(): Promise<void>;
}

/**
 * Signs the demo provider's `login` in through the connection of `email`'s domain (the
 * login page's e-mail form, then the provider's), as a browser would.
 */
export async function signInThroughConnection(
  appUrl: string,
  email: string,
  login: 'admin' | 'user',
  organization = 'acme',
): Promise<SignedInPerson> {
  const browser = new TestBrowser();
  const callback = await connectionCallback(browser, appUrl, email, login);
  const answer = await browser.get(callback.href);
  if (answer.status !== 302) throw new Error(`the sign-in of ${login} answered ${answer.status}`);
  const appInfo = () =>
    browser.get(`${appUrl}/api/organizations/${organization}/app-info`, { accept: 'application/json' });
  if ((await appInfo()).status !== 200) throw new Error(`${login} is not signed in after the sign-in`);
  return {
    browser,
    appInfo,
    signedOut: async () => {
      await within(5_000, `the session of ${login} ends`, async () => (await appInfo()).status === 401);
    },
  };
}

/** The same sign-in, answered: what the callback gives a person the directory refused (403 and its page). */
export async function connectionSignInAnswer(
  appUrl: string,
  email: string,
  login: 'admin' | 'user',
): Promise<Response> {
  const browser = new TestBrowser();
  return browser.get((await connectionCallback(browser, appUrl, email, login)).href);
}

async function connectionCallback(browser: TestBrowser, appUrl: string, email: string, login: 'admin' | 'user') {
  const started = await discover(browser, appUrl, email);
  return driveOidcLogin(started.headers.get('location') ?? '', login, browser.jar);
}
