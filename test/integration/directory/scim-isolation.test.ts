import { expect } from 'chai';
import { routedPaths } from '../../../src/adapters/koa/routes/route-paths.js';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { filterQuery, scimClient, type ScimRequest } from '../../support/scim-client.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** A body each method of a SCIM route takes, so that only the token can be why it is refused. */
function bodyFor(method: string, path: string): unknown {
  if (method === 'PATCH')
    return { schemas: [PATCH], Operations: [{ op: 'replace', value: { displayName: 'Hostile' } }] };
  if (method !== 'POST' && method !== 'PUT') return undefined;
  return path.includes('/Groups')
    ? { schemas: [GROUP], displayName: 'Hostile', members: [] }
    : { schemas: [USER], userName: 'hostile@globex.test', active: true };
}

/**
 * Two customers of one deployment, each syncing its directory: Globex, as the hostile one,
 * with its own valid token, tries every SCIM route of Acme's (each method the app mounts,
 * with Acme's real ids), and Acme's ids under its own base URL. It gets 401 alike, or 404 as
 * for an id nobody made, and nothing of Acme's changes. A new SCIM route is in the list the
 * moment it is declared.
 */
describe("SCIM between organizations: another organization's token and ids (PostgreSQL)", function () {
  this.timeout(90_000);
  let directory: DirectoryApp;
  let globexProvider: DemoIdentityProvider;
  let globexToken: string;
  let acme: ScimRequest;
  let globex: ScimRequest;
  let acmeUser: { id: string; meta: { version: string } };
  let acmeGroup: { id: string; meta: { version: string } };

  before(async () => {
    directory = await startDirectoryApp();
    // Globex signs in through a connection of its own, at its own provider (its domain need not be proved for a token).
    globexProvider = await startDemoIdentityProvider({
      clients: [
        {
          clientId: 'globex-client',
          clientSecret: 'globex-secret-value',
          redirectUris: ['http://127.0.0.1:1/connections/globex/signin-oidc'],
          postLogoutRedirectUris: [],
        },
      ],
    });
    const globexConnection = await directory.api('PUT', '/api/admin/connections/Globex', {
      Protocol: 'OpenIdConnect',
      Organization: 'globex',
      Domains: ['globex.test'],
      Authority: globexProvider.issuer,
      ClientId: 'globex-client',
      ClientSecret: 'globex-secret-value',
      UsePushedAuthorization: false,
    });
    expect(globexConnection.status, await globexConnection.clone().text()).to.equal(201);
    const acmeToken = await directory.newScimToken('acme');
    const globexMade = await directory.newScimToken('globex');
    globexToken = globexMade.token;
    acme = scimClient(acmeToken.baseUrl, acmeToken.token);
    globex = scimClient(globexMade.baseUrl, globexMade.token);
    acmeUser = await (
      await acme('POST', '/Users', { schemas: [USER], userName: 'ada@example.test', externalId: 'ada-1', active: true })
    ).json();
    acmeGroup = await (
      await acme('POST', '/Groups', { schemas: [GROUP], displayName: 'Acme Admins', members: [{ value: acmeUser.id }] })
    ).json();
  });
  after(async () => {
    await directory?.close();
    await globexProvider?.close();
  });

  /** Acme's user and group exactly as they were: same version, same members. */
  async function acmeUnchanged(): Promise<void> {
    const user = (await (await acme('GET', `/Users/${acmeUser.id}`)).json()) as typeof acmeUser & { active: boolean };
    expect(user.meta.version).to.equal(acmeUser.meta.version);
    expect(user.active).to.equal(true);
    const group = (await (await acme('GET', `/Groups/${acmeGroup.id}`)).json()) as typeof acmeGroup & {
      displayName: string;
      members: Array<{ value: string }>;
    };
    expect(group.meta.version).to.equal(acmeGroup.meta.version);
    expect(group.displayName).to.equal('Acme Admins');
    expect(group.members.map((member) => member.value)).to.deep.equal([acmeUser.id]);
    const listed = (await (await acme('GET', '/Users')).json()) as { totalResults: number };
    expect(listed.totalResults).to.equal(1);
  }

  it("refuses Globex's token on every SCIM route of Acme's, each method mounted, with 401 alike", async () => {
    const mounted = directory.app.gatehouse.endpoints.filter((endpoint) => endpoint.path.startsWith('/scim/'));
    const declared = routedPaths.filter((path) => path.startsWith('/scim/'));
    expect(new Set(mounted.map((endpoint) => endpoint.path))).to.deep.equal(new Set(declared));
    const answers = new Set<string>();
    for (const { method, path } of mounted) {
      const concrete = path
        .replace(':organization', 'acme')
        .replace('/Users/:id', `/Users/${acmeUser.id}`)
        .replace('/Groups/:id', `/Groups/${acmeGroup.id}`)
        .replace('/ResourceTypes/:id', '/ResourceTypes/User')
        .replace('/Schemas/:id', `/Schemas/${USER}`);
      const url = new URL(concrete, directory.app.url);
      const body = bodyFor(method, path);
      const answer = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${globexToken}`,
          'content-type': 'application/scim+json',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(answer.status, `${method} ${concrete}`).to.equal(401);
      answers.add(`${answer.headers.get('www-authenticate')} ${await answer.text()}`);
    }
    expect(mounted.length).to.be.greaterThan(10);
    // Nothing tells Globex which route, resource or organization it tried.
    expect(answers.size).to.equal(1);
    await acmeUnchanged();
  });

  it("answers Acme's ids under Globex's own base URL as ids nobody made (404), and changes nothing of Acme's", async () => {
    for (const [method, path] of [
      ['GET', `/Users/${acmeUser.id}`],
      ['PUT', `/Users/${acmeUser.id}`],
      ['PATCH', `/Users/${acmeUser.id}`],
      ['DELETE', `/Users/${acmeUser.id}`],
      ['GET', `/Groups/${acmeGroup.id}`],
      ['PUT', `/Groups/${acmeGroup.id}`],
      ['PATCH', `/Groups/${acmeGroup.id}`],
      ['DELETE', `/Groups/${acmeGroup.id}`],
    ] as const) {
      const answer = await globex(method, path, bodyFor(method, path));
      expect(answer.status, `${method} ${path}`).to.equal(404);
    }
    await acmeUnchanged();
  });

  it("finds none of Acme's people or groups from Globex, by list or filter, and cannot put Acme's user in a group", async () => {
    const users = (await (await globex('GET', `/Users?${filterQuery('userName eq "ada@example.test"')}`)).json()) as {
      totalResults: number;
    };
    expect(users.totalResults).to.equal(0);
    const byExternal = (await (await globex('GET', `/Users?${filterQuery('externalId eq "ada-1"')}`)).json()) as {
      totalResults: number;
    };
    expect(byExternal.totalResults).to.equal(0);
    const groups = (await (await globex('GET', '/Groups')).json()) as { totalResults: number };
    expect(groups.totalResults).to.equal(0);
    const smuggled = await globex('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Smuggled',
      members: [{ value: acmeUser.id }],
    });
    expect(smuggled.status).to.equal(400);
    // The same userName is Globex's to use: uniqueness is per organization, and says nothing of Acme's.
    const same = await globex('POST', '/Users', { schemas: [USER], userName: 'ada@example.test', active: true });
    expect(same.status).to.equal(201);
    await acmeUnchanged();
  });
});
