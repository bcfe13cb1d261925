import { expect } from 'chai';
import { startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';

const LIMIT = 5;
/** A guessed token that must never come back out, in an answer or the log. */
const GUESS = 'gh_scim_SENTINEL-guessed-token-0c4e2a9b7d1f3e5a6b8c0d2e4f6a8b0c2d4';

/**
 * The SCIM guard on a whole Gatehouse (PostgreSQL, tokens made through the administration
 * API, behind a trusted proxy so each request names its client): every wrong credential
 * gets the same 401, and a client past `Directory:FailedAuthenticationsPerMinute` gets 429
 * with Retry-After for the rest of the minute, a right token included, while the
 * organization's directory, calling from elsewhere, goes on.
 */
describe('SCIM: refused credentials, per client (PostgreSQL)', function () {
  this.timeout(90_000);
  let directory: DirectoryApp;
  let token: string;
  let baseUrl: string;
  let revoked: string;

  before(async () => {
    directory = await startDirectoryApp({
      ProjectTemplate__Hosting__TrustProxy: 'true',
      ProjectTemplate__Directory__FailedAuthenticationsPerMinute: String(LIMIT),
    });
    ({ token, baseUrl } = await directory.newScimToken());
    const old = await directory.newScimToken();
    revoked = old.token;
    expect((await directory.api('DELETE', `/api/admin/organizations/acme/scim-tokens/${old.id}`)).status).to.equal(204);
  });
  after(async () => {
    await directory?.close();
  });

  const from = (client: string, authorization: string | undefined, path = `${baseUrl}/Users`) =>
    fetch(path, {
      headers: { 'x-forwarded-for': client, ...(authorization === undefined ? {} : { authorization }) },
    });

  it('answers every wrong credential with the same 401, whatever was wrong', async () => {
    const wrong: Array<[string, string | undefined, string?]> = [
      ['no header', undefined],
      ['another scheme', `Basic ${Buffer.from(`acme:${token}`).toString('base64')}`],
      ['an empty bearer', 'Bearer '],
      ['a guessed token', `Bearer ${GUESS}`],
      ['a token of no shape', `Bearer ${'x'.repeat(2000)}`],
      ['a revoked token', `Bearer ${revoked}`],
      ["the token on another organization's path", `Bearer ${token}`, `${directory.app.url}/scim/v2/globex/Users`],
    ];
    const answers = [];
    for (const [index, [what, authorization, path]] of wrong.entries()) {
      const answer = await from(`192.0.2.${index + 1}`, authorization, path);
      answers.push({
        what,
        status: answer.status,
        challenge: answer.headers.get('www-authenticate'),
        type: answer.headers.get('content-type'),
        body: await answer.text(),
      });
    }
    const first = answers[0]!;
    expect(first.status).to.equal(401);
    expect(first.challenge).to.equal('Bearer realm="SCIM"');
    for (const answer of answers) {
      expect({ ...answer, what: first.what }, answer.what).to.deep.equal(first);
    }
  });

  it("past the limit refuses the client's requests with 429, its right token included, and no other client's", async () => {
    const attacker = '203.0.113.66';
    for (let i = 0; i < LIMIT; i++) {
      expect((await from(attacker, `Bearer ${GUESS}${i}`)).status, `guess ${i + 1}`).to.equal(401);
    }
    const over = await from(attacker, `Bearer ${GUESS}`);
    expect(over.status).to.equal(429);
    expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
    expect(over.headers.get('content-type')).to.include('application/scim+json');
    expect(((await over.json()) as { schemas: string[] }).schemas).to.deep.equal([
      'urn:ietf:params:scim:api:messages:2.0:Error',
    ]);
    expect((await from(attacker, `Bearer ${token}`)).status, 'the right token from that client').to.equal(429);

    // The organization's directory calls from elsewhere: untouched by the guesses.
    expect((await from('198.51.100.10', `Bearer ${token}`)).status).to.equal(200);
    expect((await from('198.51.100.10', `Bearer ${GUESS}`)).status, 'its own first refusal').to.equal(401);

    const logs = directory.app.logs.join('\n');
    expect(logs).not.to.include(GUESS);
    expect(logs).not.to.include(token);
  });
});
