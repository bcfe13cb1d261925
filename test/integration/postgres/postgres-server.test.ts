import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgres } from '../../support/postgres-server.js';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** Whether a process of this id runs (signal 0 only asks). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startPostgres: the test helper', function () {
  this.timeout(20_000);

  it('serves a database on a Unix socket only, keeps the data over a stop and start, and deletes it all when closed', async () => {
    const server = await startPostgres(17);
    try {
      expect(server.connectionString).to.match(/^postgresql:\/\/postgres@\/gatehouse\?host=%2F.+&port=\d+$/);
      const query = async (sql: string) => {
        const client = new pg.Client(server.connectionString);
        await client.connect();
        try {
          return (await client.query(sql)).rows;
        } finally {
          await client.end();
        }
      };
      expect(await query("SELECT current_setting('listen_addresses') AS tcp")).to.deep.equal([{ tcp: '' }]);
      await query('CREATE TABLE kept (value text); INSERT INTO kept VALUES (1)');
      await server.stop();
      await server.start();
      expect(await query('SELECT value FROM kept')).to.deep.equal([{ value: '1' }]);
    } finally {
      await server.close();
    }
    expect(existsSync(server.socketFolder)).to.equal(false);
  });

  it('a test process that crashes leaves no server running and no folder behind', async () => {
    const script = `
      import { readFileSync } from 'node:fs';
      import { startPostgres } from './test/support/postgres-server.ts';
      const server = await startPostgres(15);
      const pid = readFileSync(server.socketFolder + '/data/postmaster.pid', 'utf8').split('\\n')[0];
      console.log(JSON.stringify({ pid: Number(pid), folder: server.socketFolder }));
      setTimeout(() => { throw new Error('a test crashed'); }, 10);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).to.not.equal(0);
    const { pid, folder } = JSON.parse(output.trim()) as { pid: number; folder: string };
    expect(pid).to.be.above(0);
    const deadline = performance.now() + 5_000;
    while (running(pid) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running(pid), 'the postmaster still runs').to.equal(false);
    expect(existsSync(folder), `its folder is still there; the process said: ${errors.slice(-1000)}`).to.equal(false);
  });
});
