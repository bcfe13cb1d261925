import { expect } from 'chai';
import { ProvisionDirectory } from '../../../../src/application/directory/provision-directory.js';
import type { DirectoryStore } from '../../../../src/application/ports/directory-store.js';
import type { DirectoryGroup } from '../../../../src/domain/directory/directory-resources.js';

/** A store holding groups that any change finds at version 1 and writes; any other call fails the test. */
function groupStore(): DirectoryStore {
  const group = (organization: string, id: string): DirectoryGroup => ({
    id,
    organization,
    attributes: { displayName: id },
    version: 1,
    created: 0,
    lastModified: 0,
  });
  const calls: Partial<DirectoryStore> = {
    getGroup: async (organization, id) => group(organization, id),
    changeGroup: async (organization, id) => ({ kind: 'written', resource: group(organization, id) }),
  };
  return new Proxy({} as DirectoryStore, {
    get: (_target, name) => {
      const call = calls[name as keyof DirectoryStore];
      if (!call) throw new Error(`unexpected store call ${String(name)}`);
      return call;
    },
  });
}

/** Session refreshes recorded; each waits for `release` while `held` is set. */
function recordingSessions() {
  const refreshes: Array<[string, string[]]> = [];
  let release: () => void = () => undefined;
  let held: Promise<void> | undefined;
  return {
    refreshes,
    hold: () => (held = new Promise<void>((resolve) => (release = resolve))),
    release: () => {
      held = undefined;
      release();
    },
    sessions: {
      refreshRoles: async (organization: string, userIds: readonly string[]) => {
        refreshes.push([organization, [...userIds]]);
        await held;
        return 0;
      },
      deprovision: async () => 0,
      identitiesOf: async () => [],
    },
  };
}

const add = (...ids: string[]) => ({ members: { add: ids, remove: [] } });
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe("ProvisionDirectory: members' session roles refreshed after the answer, each waiting user once", () => {
  it('refreshes the users of the changes made while a refresh ran once each, by organization, after it', async () => {
    const recording = recordingSessions();
    const provision = new ProvisionDirectory(
      groupStore(),
      recording.sessions,
      { record: () => undefined },
      quiet,
      () => 0,
    );
    recording.hold();
    await provision.patchGroup('acme', 'g1', add('a', 'b'), undefined);
    // A group push names the same people group after group while the first refresh runs.
    await provision.patchGroup('acme', 'g2', add('b', 'c'), undefined);
    await provision.patchGroup('globex', 'g9', add('x'), undefined);
    await provision.patchGroup('acme', 'g3', add('a', 'c'), undefined);
    expect(recording.refreshes).to.deep.equal([['acme', ['a', 'b']]]);
    recording.release();
    await provision.refreshed();
    expect(recording.refreshes).to.deep.equal([
      ['acme', ['a', 'b']],
      ['acme', ['b', 'c', 'a']],
      ['globex', ['x']],
    ]);
    // Idle again: the next change is refreshed at once.
    await provision.patchGroup('acme', 'g4', add('d'), undefined);
    await provision.refreshed();
    expect(recording.refreshes.at(-1)).to.deep.equal(['acme', ['d']]);
  });

  it('goes on with the next users when a refresh fails, and logs the failure without them', async () => {
    const warnings: unknown[] = [];
    const recording = recordingSessions();
    let failing = true;
    const sessions = {
      ...recording.sessions,
      refreshRoles: async (organization: string, userIds: readonly string[]) => {
        recording.refreshes.push([organization, [...userIds]]);
        if (failing) {
          failing = false;
          throw Object.assign(new Error('down'), { code: 'catalog.unavailable' });
        }
        return 0;
      },
    };
    const provision = new ProvisionDirectory(
      groupStore(),
      sessions,
      { record: () => undefined },
      { ...quiet, warn: (fields: unknown) => warnings.push(fields) },
      () => 0,
    );
    await provision.patchGroup('acme', 'g1', add('a'), undefined);
    await provision.patchGroup('acme', 'g2', add('b'), undefined);
    await provision.refreshed();
    expect(recording.refreshes).to.deep.equal([
      ['acme', ['a']],
      ['acme', ['b']],
    ]);
    expect(warnings).to.deep.equal([{ organization: 'acme', code: 'catalog.unavailable' }]);
  });
});
