import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clockTicksPerSecond, cpuSecondsOf } from './processes.js';

/**
 * What the directory bench reads of the processes it measures, from /proc (undefined
 * where there is none): the instance's resident memory, PostgreSQL's CPU (its postmaster
 * and every backend), and when the instance has finished what it does after its answers.
 */

/** Resident memory of a process (VmRSS), bytes. */
export function rssBytesOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) PostgreSQL has used: the postmaster's own, the backends'
 * that ended (counted in the postmaster's children's time), and those of every live child.
 * `socketFolder` is the helper's folder (scripts/local-postgres/postgres-server.ts), whose
 * data folder holds postmaster.pid.
 */
export function postgresCpuSeconds(socketFolder: string): number | undefined {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(socketFolder, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  const own = statOf(postmaster);
  if (!own) return undefined;
  let ticks = own.ticks + own.childTicks;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat?.parent === postmaster) ticks += stat.ticks;
  }
  return ticks / clockTicksPerSecond;
}

/**
 * Resolves once the instance and PostgreSQL together have used under a tenth of a core
 * over half a second: the role refreshes a group change starts after its answer
 * (ProvisionDirectory) have run, each a few statements. Answers how long that took, or
 * rejects after `timeoutMs`.
 */
export async function untilIdle(pid: number | undefined, postgresFolder: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  const cpu = () => {
    const instance = cpuSecondsOf(pid);
    const postgres = postgresCpuSeconds(postgresFolder);
    return instance === undefined || postgres === undefined ? undefined : instance + postgres;
  };
  for (;;) {
    const before = cpu();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = cpu();
    if (before === undefined || after === undefined) return 0;
    if (after - before < 0.05) return Math.max(0, performance.now() - started - 500);
    if (performance.now() - started > timeoutMs) throw new Error(`the instance was still busy after ${timeoutMs} ms`);
  }
}

/** The parent, and the ticks of a process and of its waited-for children, from /proc/<pid>/stat. */
function statOf(pid: number): { parent: number; ticks: number; childTicks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the parenthesised name: state, ppid, ... utime (12th), stime, cutime, cstime.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      parent: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
      childTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined;
  }
}
