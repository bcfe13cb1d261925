import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether `perf stat` can count instructions here (Debian's linux-perf; some VMs expose no counters). */
export const instructionCounting = (() => {
  const probe = spawnSync('perf', ['stat', '-x,', '-e', 'instructions:u', 'true'], { encoding: 'utf8' });
  return probe.status === 0 && /^\d+,/m.test(probe.stderr ?? '');
})();

/**
 * Counts the user-space instructions a running process executes until `stop()` is called.
 * Unlike requests per second or CPU time, the count hardly moves with what else the
 * machine is doing (here: within a few percent run to run, where req/s moves by 20%), so
 * it shows what a change to the code really costs. Resolves undefined where perf is
 * missing or unsupported.
 */
export function countInstructions(pid: number | undefined): { stop(): Promise<number | undefined> } {
  if (!instructionCounting || pid === undefined) return { stop: async () => undefined };
  const output = join(tmpdir(), `gatehouse-bench-perf-${pid}-${Date.now()}.csv`);
  const perf = spawn('perf', ['stat', '-x,', '-e', 'instructions:u', '-o', output, '-p', String(pid)], {
    stdio: 'ignore',
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        perf.once('exit', () => {
          try {
            const line = readFileSync(output, 'utf8')
              .split('\n')
              .find((entry) => entry.includes('instructions'));
            const count = Number(line?.split(',')[0]);
            resolve(Number.isFinite(count) && count > 0 ? count : undefined);
          } catch {
            resolve(undefined);
          } finally {
            rmSync(output, { force: true });
          }
        });
        perf.kill('SIGINT');
      }),
  };
}
