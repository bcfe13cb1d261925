import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { bufferedDestination } from '../../../src/adapters/logging/buffered-destination.js';
import { createGatehouse } from '../../../src/bootstrap/gatehouse.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('bufferedDestination (production log lines, written in blocks)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const contents = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };

  it('holds a short line back, then writes it within the flush interval', async () => {
    const file = join(dir, 'quiet.log');
    const destination = bufferedDestination(file);
    await sleep(300); // the file is opened asynchronously; let a first interval pass empty
    destination.write('{"msg":"one"}\n');
    await sleep(20);
    expect(contents(file)).to.equal('');
    await sleep(400);
    expect(contents(file)).to.equal('{"msg":"one"}\n');
  });

  it('writes a full block without waiting for the interval', async () => {
    const file = join(dir, 'busy.log');
    const destination = bufferedDestination(file);
    await sleep(300);
    const line = `{"msg":"${'x'.repeat(90)}"}\n`;
    for (let i = 0; i < 60; i++) destination.write(line); // about 6 KB
    await sleep(50);
    expect(contents(file).length).to.be.at.least(4096);
  });

  it('writes what is left when the process exits, also after an uncaught error', () => {
    for (const ending of ['process.exit(0)', "setImmediate(() => { throw new Error('boom') })"]) {
      const file = join(dir, 'exit.log');
      rmSync(file, { force: true });
      const script = `import { bufferedDestination } from './src/adapters/logging/buffered-destination.ts';
        const d = bufferedDestination(${JSON.stringify(file)});
        setTimeout(() => { d.write('{"msg":"last words"}\\n'); ${ending}; }, 100);`;
      spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: process.cwd(),
        encoding: 'utf8',
      });
      expect(contents(file), ending).to.equal('{"msg":"last words"}\n');
    }
  });
});

describe('Gatehouse.flushLog (main calls it after the "listening" line)', () => {
  it('writes the held lines at once instead of at the next block or interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-'));
    try {
      const file = join(dir, 'start.log');
      const gatehouse = await createGatehouse({
        env: {
          ...COOKIE_POSTURE,
          NODE_ENV: 'test',
          ProjectTemplate__Logging__Level: 'info',
          ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
        },
        logDestination: bufferedDestination(file),
      });
      gatehouse.logger.info({ url: 'http://127.0.0.1:1' }, 'Gatehouse listening on http://127.0.0.1:1');
      expect(readFileSync(file, 'utf8')).not.to.contain('listening');
      gatehouse.flushLog();
      expect(readFileSync(file, 'utf8')).to.contain('"msg":"Gatehouse listening on http://127.0.0.1:1"');
      await gatehouse.shutdown();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
