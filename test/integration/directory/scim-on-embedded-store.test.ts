import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { loadNodeSqlite } from '../../../src/adapters/sqlite/node-sqlite.js';
import { StartupError } from '../../../src/bootstrap/startup-error.js';
import { connectionSignInAnswer, signInThroughConnection } from '../../support/connection-sign-in.js';
import { DIRECTORY_CLIENT_SECRET, startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { scimClient } from '../../support/scim-client.js';
import { startGatehouse } from '../../support/start-gatehouse.js';

const sqliteOffered = (await loadNodeSqlite()) !== undefined;

/** Settings of a Gatehouse syncing directories without a database, its catalog a folder of `folder`. */
function withoutDatabase(folder: string, embeddedFile: string): Record<string, string> {
  return {
    ProjectTemplate__Authentication__ConnectionsDirectory: folder,
    ProjectTemplate__Administration__Enabled: 'true',
    ProjectTemplate__Administration__ApiKeys__0: newApiKey(randomBytes).hash,
    ProjectTemplate__Directory__Enabled: 'true',
    ProjectTemplate__Directory__EmbeddedFile: embeddedFile,
  };
}

/** The problems a start that must fail was refused with. */
async function refusedStart(env: Record<string, string>): Promise<StartupError> {
  const outcome = await startGatehouse(env).then(
    async (running) => {
      await running.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  if (!(outcome instanceof StartupError)) throw new Error(`expected a refused start, got ${String(outcome)}`);
  return outcome;
}

/**
 * Directory sync through a whole Gatehouse without PostgreSQL: the catalog a folder, the
 * directories in the embedded store (a SQLite file through node:sqlite). An organization's
 * directory provisions a person, who signs in through the organization's connection (a real
 * OpenID provider); the directory deactivates them, and their session ends at once.
 */
describe('directory sync over SCIM, on the embedded store (no database)', function () {
  this.timeout(90_000);

  if (!sqliteOffered) {
    it(`refuses to start on Node.js ${process.version}, which has no node:sqlite, naming both ways out`, async () => {
      const folder = mkdtempSync(join(tmpdir(), 'gatehouse-no-sqlite-'));
      try {
        const refused = await refusedStart(withoutDatabase(folder, join(folder, 'directory.sqlite')));
        const problem = refused.problems.find((p) => p.key === 'ProjectTemplate:Directory:Enabled');
        expect(problem?.message).to.contain('Node.js 22.13 or later');
        expect(problem?.message).to.contain('Database:ConnectionString');
        expect(existsSync(join(folder, 'directory.sqlite'))).to.equal(false);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });
    return;
  }

  let directory: DirectoryApp;
  before(async () => {
    directory = await startDirectoryApp({}, { 'Acme Admins': 'admin' }, { store: 'embedded' });
  });
  after(async () => {
    await directory?.close();
  });

  it('provisions a person, and ends their session and refuses their sign-in once the directory deactivates them', async () => {
    expect(directory.embeddedFile && existsSync(directory.embeddedFile)).to.equal(true);
    expect(directory.app.logs.join('\n')).to.include('directories are kept in the embedded store');
    const { token, baseUrl } = await directory.newScimToken();
    const scim = scimClient(baseUrl, token);
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ada@example.test',
      externalId: 'admin',
      emails: [{ value: 'ada@example.test', type: 'work', primary: true }],
      active: true,
    });
    expect(created.status).to.equal(201);
    const user = (await created.json()) as { id: string };

    const ada = await signInThroughConnection(directory.app.url, 'ada@example.test', 'admin');
    const deactivated = await scim('PATCH', `/Users/${user.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(deactivated.status).to.equal(200);
    await ada.signedOut();
    expect(directory.app.logs.join('\n')).to.include('"cause":"directory_deprovisioned"');
    const refused = await connectionSignInAnswer(directory.app.url, 'ada@example.test', 'admin');
    expect(refused.status).to.equal(403);

    const logs = directory.app.logs.join('\n');
    expect(logs).not.to.include(token);
    expect(logs).not.to.include(DIRECTORY_CLIENT_SECRET);
  });

  it('refuses a second Gatehouse on the same file while the first runs, naming Directory:EmbeddedFile', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gatehouse-second-instance-'));
    try {
      const refused = await refusedStart(withoutDatabase(folder, directory.embeddedFile!));
      const problem = refused.problems.find((p) => p.key === 'ProjectTemplate:Directory:EmbeddedFile');
      expect(problem?.message).to.contain('held by another Gatehouse');
      // The first goes on serving its directory.
      const { token, baseUrl } = await directory.newScimToken();
      expect((await scimClient(baseUrl, token)('GET', '/Users')).status).to.equal(200);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
