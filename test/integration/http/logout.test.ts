import { expect } from 'chai';
import { adminClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

describe('POST /Account/Logout', () => {
  let running: RunningGatehouse;
  before(async () => (running = await startGatehouse()));
  after(() => running.close());

  const logout = (cookie: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${running.url}/Account/Logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
  const isSignedIn = async (cookie: string) =>
    (await fetch(`${running.url}/`, { headers: { cookie }, redirect: 'manual' })).status === 200;

  it('refuses a logout without the anti-forgery token with a 400 and keeps the session', async () => {
    const { cookie } = await signIn(running.gatehouse, adminClaims);
    const response = await logout(cookie, '');
    expect(response.status).to.equal(400);
    expect(response.headers.get('set-cookie')).to.equal(null);
    expect(await isSignedIn(cookie)).to.equal(true);
  });

  it('refuses the token of another session', async () => {
    const victim = await signIn(running.gatehouse, adminClaims);
    const attacker = await signIn(running.gatehouse, adminClaims);
    expect((await logout(victim.cookie, `_csrf=${attacker.csrf}`)).status).to.equal(400);
    expect(await isSignedIn(victim.cookie)).to.equal(true);
  });

  it('refuses a valid token posted from another origin or site', async () => {
    const { cookie, csrf } = await signIn(running.gatehouse, adminClaims);
    expect((await logout(cookie, `_csrf=${csrf}`, { origin: 'https://evil.example' })).status).to.equal(400);
    expect((await logout(cookie, `_csrf=${csrf}`, { 'sec-fetch-site': 'cross-site' })).status).to.equal(400);
    expect(await isSignedIn(cookie)).to.equal(true);
  });

  it('refuses a repeated token field', async () => {
    const { cookie, csrf } = await signIn(running.gatehouse, adminClaims);
    expect((await logout(cookie, `_csrf=${csrf}&_csrf=${csrf}`)).status).to.equal(400);
    expect(await isSignedIn(cookie)).to.equal(true);
  });

  it('with a valid token destroys the server-side session, clears the cookie and redirects to the login page', async () => {
    const { cookie, csrf } = await signIn(running.gatehouse, adminClaims);
    const response = await logout(cookie, `_csrf=${encodeURIComponent(csrf)}`, {
      origin: running.url,
      'sec-fetch-site': 'same-origin',
    });
    expect(response.status).to.equal(302);
    // No provider sign-out for this user: straight to the login page, which says it worked.
    expect(response.headers.get('location')).to.equal('/Account/Login');
    const setCookies = response.headers.getSetCookie();
    expect(setCookies.filter((c) => c.startsWith('gatehouse.sid='))).to.have.lengthOf(1);
    expect(setCookies.find((c) => c.startsWith('gatehouse.sid='))).to.match(
      /^gatehouse\.sid=;.*expires=Thu, 01 Jan 1970/,
    );
    expect(setCookies.find((c) => c.startsWith('gatehouse.sid.signedout='))).to.match(
      /^gatehouse\.sid\.signedout=1; path=\/; expires=.*; samesite=lax; httponly$/,
    );
    // Replaying the old cookie is anonymous: the server-side record is gone.
    expect(await isSignedIn(cookie)).to.equal(false);
  });

  it('challenges an anonymous logout instead of processing it', async () => {
    const response = await logout('', '_csrf=x');
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.match(/^\/Account\/Login/);
  });
});
