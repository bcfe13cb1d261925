/**
 * The connections folder read two ways: at start with blocking calls (nothing is served
 * yet), while serving by polls that never block. Both see the same files the same way:
 * `*.json` only, each declared as read, a secret file named beside it read into its key;
 * the polls report a file added, changed (or its secret file changed) and removed, and
 * nothing for files left alone.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionChange } from '../../../src/application/ports/connection-directory.js';
import type { Logger } from '../../../src/application/ports/logger.js';
import { sectionReader } from '../../../src/adapters/connections/connection-section.js';
import { FolderConnections } from '../../../src/adapters/connections/folder-connections.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';

const POLL_MS = 20;

function oidcConnection(domain: string): Record<string, unknown> {
  return {
    Protocol: 'OpenIdConnect',
    Organization: domain,
    Domains: [domain],
    Authority: `https://login.${domain}`,
    ClientId: 'gatehouse',
    ClientSecretFile: `${domain}-secret`,
  };
}

describe('connections folder: read at start, then polled', () => {
  let folder: string;
  let directory: FolderConnections;
  let stopWatching: (() => void) | undefined;
  /** Errors logged by this test's directory (each test has its own, so a poll of the test before cannot reach it). */
  let errors: string[];
  /** Changes reported by the polls, as `kind name`. */
  let reported: string[];

  const write = (name: string, content: unknown) =>
    writeFileSync(join(folder, name), typeof content === 'string' ? content : JSON.stringify(content));

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-connections-folder-'));
    reported = [];
    const logged: string[] = (errors = []);
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (_fields, message) => void logged.push(message),
    };
    const reader = sectionReader(await settingsSchema(builtInProviders));
    directory = new FolderConnections(folder, reader, logger, POLL_MS);
  });
  afterEach(() => {
    stopWatching?.();
    rmSync(folder, { recursive: true, force: true });
  });

  function watch(): void {
    const into = reported;
    stopWatching = directory.watch((changes: ConnectionChange[]) => {
      for (const change of changes)
        into.push(`${change.kind} ${change.kind === 'declared' ? change.declaration.name : change.name}`);
    });
  }

  /** Waits until the polls reported `expected` (and a few polls more, to see nothing else follows). */
  async function expectReported(expected: string[]): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (reported.length < expected.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 5));
    expect(reported).to.deep.equal(expected);
    reported.length = 0;
  }

  it('declares each *.json file at start, with its secret file read into its key, and nothing else', async () => {
    write('acme.json', oidcConnection('acme.test'));
    write('acme.test-secret', 'SENTINEL-acme-secret\n');
    write('globex.json', '{ "Protocol": ');
    write('example.json.sample', oidcConnection('example.test'));
    write('.hidden.json', oidcConnection('hidden.test'));
    const declared = await directory.read();
    expect(declared.map((declaration) => declaration.name)).to.deep.equal(['acme', 'globex']);
    expect(declared[0]?.section).to.include({
      ClientSecret: 'SENTINEL-acme-secret',
      Authority: 'https://login.acme.test',
    });
    expect(declared[0]?.problems).to.deep.equal([]);
    expect(declared[1]?.problems.map((problem) => problem.message)).to.deep.equal(['is not valid JSON']);
  });

  it('reports, while polled, a file added, changed, its secret file changed, and removed; nothing for files left alone', async () => {
    write('acme.json', oidcConnection('acme.test'));
    write('acme.test-secret', 'first');
    expect((await directory.read()).map((declaration) => declaration.name)).to.deep.equal(['acme']);
    watch();
    await expectReported([]);

    write('globex.json', oidcConnection('globex.test'));
    write('globex.test-secret', 'globex');
    await expectReported(['declared globex']);

    write('acme.json', { ...oidcConnection('acme.test'), DisplayName: 'Acme Corporation' });
    await expectReported(['declared acme']);

    write('acme.test-secret', 'second, rotated');
    await expectReported(['declared acme']);

    unlinkSync(join(folder, 'globex.json'));
    await expectReported(['removed globex']);
    expect(errors).to.deep.equal([]);
  });

  it('changes nothing while the folder cannot be listed, and says so once', async () => {
    write('acme.json', oidcConnection('acme.test'));
    await directory.read();
    watch();
    rmSync(folder, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 6));
    expect(reported).to.deep.equal([]);
    expect(errors).to.deep.equal(['the connections folder cannot be listed; connections are unchanged']);
  });
});
