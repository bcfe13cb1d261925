import { expect } from 'chai';
import { DirectorySessions } from '../../../../src/application/directory/directory-sessions.js';
import type { DirectoryStore } from '../../../../src/application/ports/directory-store.js';
import type { SessionStore } from '../../../../src/application/ports/session-store.js';
import type { OrganizationBinding } from '../../../../src/domain/connections/organization-guard.js';
import type { DirectoryUser } from '../../../../src/domain/directory/directory-resources.js';

const binding = { connection: 'acme-idp', organization: 'acme', roleMappings: {} } as unknown as OrganizationBinding;

/** A directory of two users; the store calls are counted, and reading a group of anyone is recorded. */
function directory() {
  const users: Record<string, DirectoryUser> = {
    signedIn: user('signedIn', 'ada@acme.test'),
    nowhere: user('nowhere', 'bob@acme.test'),
  };
  const groupsRead: string[] = [];
  const store: Partial<DirectoryStore> = {
    getUser: async (_organization, id) => users[id],
    signInsOf: async () => [],
    groupsOf: async (_organization, id) => {
      groupsRead.push(id);
      return [];
    },
  };
  return { store: store as DirectoryStore, groupsRead };
}

function user(id: string, userName: string): DirectoryUser {
  return { id, organization: 'acme', attributes: { userName, active: true }, version: 1, created: 0, lastModified: 0 };
}

describe("DirectorySessions.refreshRoles: a person's groups are read only when they have a live session", () => {
  it("reads the groups of the person signed in, not of the person signed in nowhere, and changes nobody's record without one", async () => {
    const { store, groupsRead } = directory();
    const sessionsRead: string[] = [];
    const sessions = new DirectorySessions(
      store,
      { of: () => [{ provider: 'acme-idp', binding }], bindingOf: () => binding },
      { execute: async () => 0 },
      {
        get: async (handle: string) => {
          sessionsRead.push(handle);
          return undefined; // ended meanwhile: nothing to change
        },
      } as unknown as SessionStore,
      { sessionsOf: async (_provider, subject) => (subject === 'ada@acme.test' ? ['handle-of-ada'] : []) },
      { read: async () => undefined, withPrincipal: async () => ({}) as never, release: async () => undefined },
      { idleMs: 60_000, absoluteMs: 600_000 },
      () => 0,
    );
    expect(await sessions.refreshRoles('acme', ['signedIn', 'nowhere', 'unknown'])).to.equal(0);
    expect(groupsRead).to.deep.equal(['signedIn']);
    expect(sessionsRead).to.deep.equal(['handle-of-ada']);
  });
});
