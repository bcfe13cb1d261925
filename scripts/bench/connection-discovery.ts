/**
 * Finding a connection by e-mail domain (what `POST /External/Discover` asks), with few
 * connections and with many: nanoseconds per lookup of the compiled
 * `ConnectionRegistry.byDomain` (a read of ConnectionIndex's domain maps), for each count
 * of connections in the same process, the counts alternating. A scan would cost ten times
 * more with each tenfold count; a map read costs the same but for the processor's caches,
 * which hold the maps of ten connections and not those of ten thousand.
 *
 *   node --import tsx scripts/bench/connection-discovery.ts [counts, default 10,1000,10000]
 *
 * Each registry holds SAML2 and OpenID Connect connections read by the connection rules
 * (scripts/bench/connection-folder.ts: a domain and a wildcard over its subdomains each).
 * The lookups are the same mix for both: half a connection's domain, a quarter one of its
 * subdomains (found through the wildcard), a quarter a domain nobody holds. Prints one
 * JSON line.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connectionFile } from './connection-folder.js';
import { projectRoot } from './dist-modules.js';
import { median } from './cold-start.js';
import { LOOKUPS, queriesFor, timeLookups } from './domain-lookups.js';

const counts = (process.argv[2] ?? '10,1000,10000').split(',').map(Number);
const ROUNDS = 9;

async function load<T>(path: string): Promise<T> {
  const file = join(process.env.BENCH_DIST ?? join(projectRoot, 'dist'), path);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm run bench does).`);
  return (await import(pathToFileURL(file).href)) as T;
}
const { ConnectionRegistry } = await load<typeof import('../../src/application/connections/connection-registry.js')>(
  'application/connections/connection-registry.js',
);
const { builtInProviders } = await load<typeof import('../../src/bootstrap/provider-catalogue.js')>(
  'bootstrap/provider-catalogue.js',
);

const { unclaimableDomains } = await load<typeof import('../../src/domain/connections/unclaimable-domains.js')>(
  'domain/connections/unclaimable-domains.js',
);
const { publicDomainLists } = await load<typeof import('../../src/adapters/domain-lists/public-domain-lists.js')>(
  'adapters/domain-lists/public-domain-lists.js',
);

type Registry = InstanceType<typeof ConnectionRegistry>;

function registryOf(count: number): Registry {
  const registry = new ConnectionRegistry(
    {
      environment: 'production',
      protocols: builtInProviders,
      unclaimableDomain: unclaimableDomains(publicDomainLists()),
    },
    new Set(),
  );
  const events = registry.apply(
    Array.from({ length: count }, (_, index) => {
      const name = `org-${index}`;
      return {
        kind: 'declared' as const,
        declaration: { name, origin: `${name}.json`, section: connectionFile(name, index), problems: [] },
      };
    }),
  );
  const refused = events.filter((event) => event.kind === 'refused');
  if (refused.length > 0 || registry.size !== count) throw new Error(`${refused.length} connections were refused`);
  return registry;
}

const registries = counts.map(registryOf);
const queries = counts.map(queriesFor);
const runs: number[][] = counts.map(() => []);
for (let round = 0; round <= ROUNDS; round++) {
  counts.forEach((_, which) => {
    const { ns, found } = timeLookups((domain) => registries[which]!.byDomain(domain), queries[which]!);
    if (found !== (LOOKUPS * 3) / 4) throw new Error(`found ${found} of ${(LOOKUPS * 3) / 4} connections`);
    if (round > 0) runs[which]!.push(ns); // the first round warms up
  });
}
process.stdout.write(
  `${JSON.stringify({
    lookups: counts.map((connections, which) => ({
      connections,
      nsPerLookup: Math.round(median(runs[which]!) * 10) / 10,
    })),
  })}\n`,
);
