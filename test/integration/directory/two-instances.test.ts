import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { signInThroughConnection } from '../../support/connection-sign-in.js';
import { startDirectoryApp, type DirectoryApp } from '../../support/directory-app.js';
import { redisUrl } from '../../support/each-session-store.js';
import { scimClient } from '../../support/scim-client.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';
import { within } from '../../support/within.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Two instances of one deployment (PostgreSQL, sessions in Redis): a person signed in
 * through instance A, their directory's pushes answered by instance B. A group pushed to B
 * gives A's live session its role, a deactivation on B signs them out at A within 5 s, and
 * A's application subscribers see what B wrote. Skipped where no Redis is configured (CI
 * always has one).
 */
(redisUrl ? describe : describe.skip)(
  'directory sync on two instances (PostgreSQL, Redis, real OpenID provider)',
  function () {
    this.timeout(90_000);
    let directory: DirectoryApp;
    let b: RunningGatehouse;

    before(async () => {
      directory = await startDirectoryApp({
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: redisUrl,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
      });
      b = await directory.another();
    });
    after(async () => {
      await directory?.close();
    });

    it("reaches A's live session from pushes to B: the role within its next request, the sign-out within 5 s", async () => {
      const made = await directory.newScimToken();
      const throughB = scimClient(`${b.url}/scim/v2/acme`, made.token);
      const seenAtA: string[] = [];
      const subscription = await directory.app.gatehouse.directory!.subscribe(
        (change) => void seenAtA.push(`${change.kind} ${change.resourceType}`),
        { organization: 'acme' },
      );
      try {
        const created = await throughB('POST', '/Users', {
          schemas: [USER],
          userName: 'ada@example.test',
          emails: [{ value: 'ada@example.test', type: 'work', primary: true }],
          active: true,
        });
        expect(created.status).to.equal(201);
        const { id } = (await created.json()) as { id: string };
        const ada = await signInThroughConnection(directory.app.url, 'ada@example.test', 'admin');
        const adminAtA = () =>
          ada.browser.get(`${directory.app.url}/api/organizations/acme/app-info/admin`, { accept: 'application/json' });
        expect((await adminAtA()).status).to.equal(403);

        const group = await throughB('POST', '/Groups', {
          schemas: [GROUP],
          displayName: 'Acme Admins',
          members: [{ value: id }],
        });
        expect(group.status).to.equal(201);
        await within(5_000, "A's session gains the role pushed to B", async () => (await adminAtA()).status === 200);

        const deactivated = await throughB('PATCH', `/Users/${id}`, {
          schemas: [PATCH],
          Operations: [{ op: 'replace', path: 'active', value: false }],
        });
        expect(deactivated.status).to.equal(200);
        await ada.signedOut();
        await within(5_000, "A's subscriber sees B's changes", async () => seenAtA.includes('deactivated User'));
        expect(seenAtA.slice(0, 2)).to.deep.equal(['created User', 'created Group']);
      } finally {
        await subscription.stop();
      }
    });
  },
);
