import { expect } from 'chai';
import { createHook } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { bufferedDestination } from '../../../src/adapters/logging/buffered-destination.js';
import { createGatehouse } from '../../../src/bootstrap/gatehouse.js';

/** A schedule the test drives: `tick()` is the moment a timer would have fired. */
function manualSchedule() {
  const flushes = new Set<() => void>();
  return {
    schedule: (flush: () => void) => {
      flushes.add(flush);
      return () => void flushes.delete(flush);
    },
    tick: () => flushes.forEach((flush) => flush()),
    /** Destinations it still calls. */
    running: () => flushes.size,
  };
}

/** Timers (setTimeout, setInterval) that buffered-destination.ts started and has not cleared, unreferenced ones included. */
function liveTimers(): { count(): number; stop(): void } {
  const live = new Set<number>();
  const hook = createHook({
    init: (id, type) => {
      // Only the module's own: mocha starts a timer of its own for every test.
      if (type === 'Timeout' && new Error().stack?.includes('buffered-destination.ts')) live.add(id);
    },
    destroy: (id) => void live.delete(id),
  }).enable();
  return { count: () => live.size, stop: () => void hook.disable() };
}

/** Resolves with what `file` holds once something is written to it: on the write itself, however slow the machine. */
function firstWrite(file: string): Promise<string> {
  return new Promise((resolve) => {
    const check = () => {
      if (!existsSync(file)) return void watcher.close(); // the test ended (timed out) and removed it
      const text = readFileSync(file, 'utf8');
      if (text === '') return;
      watcher.close();
      resolve(text);
    };
    const watcher = watch(file, check);
    check();
  });
}

describe('bufferedDestination (production log lines, written in blocks)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const contents = (file: string) => readFileSync(file, 'utf8');

  it('holds a short line back until its schedule calls, then writes it', () => {
    const file = join(dir, 'quiet.log');
    const timer = manualSchedule();
    const destination = bufferedDestination(file, { schedule: timer.schedule });
    destination.write('{"msg":"one"}\n');
    expect(contents(file)).to.equal('');
    timer.tick();
    expect(contents(file)).to.equal('{"msg":"one"}\n');
    destination.close();
  });

  it('by default writes a held line by itself, without being asked', async () => {
    const file = join(dir, 'default.log');
    const destination = bufferedDestination(file);
    destination.write('{"msg":"one"}\n');
    expect(contents(file)).to.equal('');
    expect(await firstWrite(file)).to.equal('{"msg":"one"}\n'); // at the shared timer's next call
    destination.close();
  });

  it('writes a full block at once, without waiting for its schedule', () => {
    const file = join(dir, 'busy.log');
    const destination = bufferedDestination(file, { schedule: manualSchedule().schedule });
    const line = `{"msg":"${'x'.repeat(90)}"}\n`;
    for (let i = 0; i < 60; i++) destination.write(line); // about 6 KB
    expect(contents(file).length).to.be.at.least(4096);
    destination.close();
  });

  it('writes what is left when the process exits, also after an uncaught error', () => {
    for (const ending of ['process.exit(0)', "setImmediate(() => { throw new Error('boom') })"]) {
      const file = join(dir, 'exit.log');
      rmSync(file, { force: true });
      const script = `import { bufferedDestination } from './src/adapters/logging/buffered-destination.ts';
        const d = bufferedDestination(${JSON.stringify(file)});
        d.write('{"msg":"last words"}\\n');
        ${ending};`;
      spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: process.cwd(),
        encoding: 'utf8',
      });
      expect(contents(file), ending).to.equal('{"msg":"last words"}\n');
    }
  });

  it('on close writes what it holds, leaves its schedule and its file, and drops later lines', () => {
    const file = join(dir, 'closed.log');
    const timer = manualSchedule();
    const destination = bufferedDestination(file, { schedule: timer.schedule });
    destination.write('{"msg":"held"}\n');
    destination.close();
    expect(contents(file)).to.equal('{"msg":"held"}\n');
    expect(timer.running(), 'still scheduled').to.equal(0);
    // The closed file's descriptor number is free again, likely for this next file: a
    // late line must not land in it.
    const next = join(dir, 'next.log');
    const nextFd = openSync(next, 'a');
    try {
      destination.write('{"msg":"too late"}\n');
      destination.flush();
      timer.tick();
      destination.close();
    } finally {
      closeSync(nextFd);
    }
    expect(contents(file)).to.equal('{"msg":"held"}\n');
    expect(contents(next)).to.equal('');
  });

  it('shares one timer and one exit listener among all it makes, and closing them all leaves neither', async () => {
    const listeners = process.listenerCount('exit');
    const descriptors = () => readdirSync('/proc/self/fd').length;
    const openFiles = descriptors();
    const timers = liveTimers();
    try {
      const destinations = Array.from({ length: 50 }, (_, i) => bufferedDestination(join(dir, `${i}.log`)));
      expect(process.listenerCount('exit') - listeners, 'exit listeners added').to.be.at.most(1);
      expect(timers.count(), 'timers started').to.be.at.most(1);
      for (const destination of destinations) destination.close();
      expect(process.listenerCount('exit'), 'exit listeners left').to.equal(listeners);
      await new Promise((resolve) => setImmediate(resolve)); // a cleared timer's destroy is reported on the next turn
      expect(timers.count(), 'timers left').to.equal(0);
      expect(descriptors(), 'files left open').to.equal(openFiles);
    } finally {
      timers.stop();
    }
  });
});

describe('Gatehouse.flushLog (main calls it after the "listening" line)', () => {
  it('writes the held lines at once instead of at the next block or interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-'));
    try {
      const file = join(dir, 'start.log');
      const destination = bufferedDestination(file);
      const gatehouse = await createGatehouse({
        env: {
          ...COOKIE_POSTURE,
          NODE_ENV: 'test',
          ProjectTemplate__Logging__Level: 'info',
          ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
        },
        logDestination: destination,
      });
      gatehouse.logger.info({ url: 'http://127.0.0.1:1' }, 'Gatehouse listening on http://127.0.0.1:1');
      expect(readFileSync(file, 'utf8')).not.to.contain('listening');
      gatehouse.flushLog();
      expect(readFileSync(file, 'utf8')).to.contain('"msg":"Gatehouse listening on http://127.0.0.1:1"');
      await gatehouse.shutdown();
      destination.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
