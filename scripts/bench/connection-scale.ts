/**
 * `npm run bench`'s connection measurements (BENCH_EXTRAS=connections): a deployment
 * holding a thousand customers' connections against one holding one, in the same run.
 *
 * - Cold start of the bundle to a ready `/health/ready` with 1,000 connections in the
 *   folder (SAML2 and OpenID Connect alternating) against 1, the two alternating, 11 each.
 * - Memory per idle connection: heap and external memory grown while a running instance
 *   adds 1,000 connection files, per connection (scripts/bench/connection-memory.ts).
 * - Finding a connection by e-mail domain with 10, 1,000 and 10,000 connections
 *   (scripts/bench/connection-discovery.ts).
 */
import { join } from 'node:path';
import { coldStartOnce, meanOf, median, type Start } from './cold-start.js';
import { writeConnectionFolder } from './connection-folder.js';
import { jsonLineOf } from './processes.js';

export const MANY_CONNECTIONS = 1_000;
const COLD_STARTS = 11;

/** What a store of connections costs at scale: the folder's (1,000) and the catalog's (10,000) alike. */
export interface ConnectionScale {
  coldStart: {
    /** Median milliseconds to ready, and mean CPU until then, with one connection. */
    oneMedianMs: number;
    oneCpuMeanMs: number | undefined;
    /** The same with many. */
    manyMedianMs: number;
    manyCpuMeanMs: number | undefined;
    manyRunsMs: number[];
  };
  memory: { connections: number; bytesPerConnection: number };
  /** Nanoseconds per lookup by domain, for each count of connections. */
  discovery: { lookups: Array<{ connections: number; nsPerLookup: number }> };
}

/** The folder of 1,000 connections the cold start and the connections row use (written afresh). */
export function manyConnectionsFolder(resultsDir: string): string {
  return join(resultsDir, 'connections-1000');
}

export async function measureConnectionScale(resultsDir: string): Promise<ConnectionScale> {
  process.stdout.write(' connections ');
  const one = writeConnectionFolder(join(resultsDir, 'connections-1'), 1);
  const many = writeConnectionFolder(manyConnectionsFolder(resultsDir), MANY_CONNECTIONS);
  const withFolder = (folder: string) => ({ env: { ProjectTemplate__Authentication__ConnectionsDirectory: folder } });
  const oneStarts: Start[] = [];
  const manyStarts: Start[] = [];
  for (let run = 0; run < COLD_STARTS; run++) {
    oneStarts.push(await coldStartOnce([], withFolder(one)));
    manyStarts.push(await coldStartOnce([], withFolder(many)));
    process.stdout.write('.');
  }
  const memory = await jsonLineOf<ConnectionScale['memory']>(
    ['scripts/bench/connection-memory.ts', String(MANY_CONNECTIONS)],
    {},
    120_000,
  );
  const discovery = await jsonLineOf<ConnectionScale['discovery']>(
    ['scripts/bench/connection-discovery.ts', '10,1000,10000'],
    {},
    300_000,
  );
  return {
    coldStart: {
      oneMedianMs: round1(median(oneStarts.map((start) => start.ms))),
      oneCpuMeanMs: cpuMean(oneStarts),
      manyMedianMs: round1(median(manyStarts.map((start) => start.ms))),
      manyCpuMeanMs: cpuMean(manyStarts),
      manyRunsMs: manyStarts.map((start) => round1(start.ms)),
    },
    memory,
    discovery,
  };
}

function cpuMean(starts: readonly Start[]): number | undefined {
  const mean = meanOf(starts.map((start) => start.cpuMs));
  return mean === undefined ? undefined : round1(mean);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
