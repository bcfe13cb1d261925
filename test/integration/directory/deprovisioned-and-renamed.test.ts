import { expect } from 'chai';
import { connectionSignInAnswer, signInThroughConnection } from '../../support/connection-sign-in.js';
import { startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { scimClient } from '../../support/scim-client.js';

/**
 * A person the directory deactivates and, in the same push, gives another userName,
 * externalId and address than anything their sign-in carries: their next sign-in matches no
 * directory user by its attributes, but it is the sign-in recorded for that deactivated
 * user, and is refused. Through a whole Gatehouse on PostgreSQL and a real OpenID provider.
 */
describe('a person deactivated and renamed by their directory stays refused (PostgreSQL, real OpenID provider)', function () {
  this.timeout(90_000);
  let directory: DirectoryApp;
  before(async () => {
    directory = await startDirectoryApp();
  });
  after(async () => {
    await directory?.close();
  });

  it('refuses the sign-in recorded for the deactivated user, and admits it again once the directory reactivates them', async () => {
    const made = await directory.newScimToken();
    const scim = scimClient(made.baseUrl, made.token);
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ada@example.test',
      externalId: 'admin',
      emails: [{ value: 'ada@example.test', type: 'work', primary: true }],
      active: true,
    });
    expect(created.status).to.equal(201);
    const { id } = (await created.json()) as { id: string };
    // Her first sign-in is matched to the user by its attributes, and recorded.
    const ada = await signInThroughConnection(directory.app.url, 'ada@example.test', 'admin');

    const renamed = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'a.lovelace@elsewhere.test',
      externalId: 'legacy-7731',
      emails: [{ value: 'a.lovelace@elsewhere.test', type: 'work', primary: true }],
    };
    expect((await scim('PUT', `/Users/${id}`, { ...renamed, active: false })).status).to.equal(200);
    await ada.signedOut();
    const refused = await connectionSignInAnswer(directory.app.url, 'ada@example.test', 'admin');
    expect(refused.status).to.equal(403);
    expect(await refused.text()).to.include('idp.user_deprovisioned');

    expect((await scim('PUT', `/Users/${id}`, { ...renamed, active: true })).status).to.equal(200);
    const admitted = await connectionSignInAnswer(directory.app.url, 'ada@example.test', 'admin');
    expect(admitted.status).to.equal(302);
  });
});
