/**
 * Finding a connection of the PostgreSQL catalog by e-mail domain (what `POST
 * /External/Discover` asks), with few connections and with many: nanoseconds per lookup
 * of the compiled `IdentityProviders.connectionForDomain`, each count an instance of the
 * compiled Gatehouse composed in this process on a catalog of its own (composition reads
 * it), the counts alternating. Lookups are the mix of connection-discovery.ts: half a
 * connection's domain, a quarter one of its subdomains (found through the wildcard its
 * verified domain proves), a quarter a domain nobody holds.
 *
 *   node --import tsx scripts/bench/catalog-discovery.ts <count> <catalog URL> [<count> <catalog URL> ...]
 *
 * With the administration settings of catalogInstanceEnv (catalog-database.ts) in the
 * environment; each catalog holds `org-0` to `org-<count - 1>` (seedCatalog). Prints one
 * JSON line.
 */
import { median } from './cold-start.js';
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';
import { productionEnv } from './rows.js';
import { LOOKUPS, queriesFor, timeLookups } from './domain-lookups.js';

const ROUNDS = 9;
const catalogs: Array<{ count: number; url: string }> = [];
for (let arg = 2; arg + 1 < process.argv.length; arg += 2)
  catalogs.push({ count: Number(process.argv[arg]), url: process.argv[arg + 1]! });

const { createGatehouse } = await loadCompiledGatehouse();
type Instance = Awaited<ReturnType<typeof createGatehouse>>;

async function instanceOn({ count, url }: { count: number; url: string }): Promise<Instance> {
  const gatehouse = await createGatehouse({
    rootDir: projectRoot,
    env: { ...process.env, ...productionEnv, ProjectTemplate__Session__Store: 'Memory', DATABASE_URL: url },
    logDestination: { write: () => undefined },
  });
  // Listening, it checks the entries read at start in the background: lookups are timed once all are.
  await gatehouse.listen(0, '127.0.0.1');
  let report = (await gatehouse.providers.connectionReport()) ?? {};
  while (Object.values(report).includes('pending')) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    report = (await gatehouse.providers.connectionReport()) ?? {};
  }
  if (Object.keys(report).length !== count)
    throw new Error(`${Object.keys(report).length} of ${count} connections read`);
  return gatehouse;
}

const instances: Instance[] = [];
for (const catalog of catalogs) instances.push(await instanceOn(catalog));
const queries = catalogs.map(({ count }) => queriesFor(count));
const runs: number[][] = catalogs.map(() => []);
for (let round = 0; round <= ROUNDS; round++) {
  catalogs.forEach((_, which) => {
    const { ns, found } = timeLookups(
      (domain) => instances[which]!.providers.connectionForDomain(domain),
      queries[which]!,
    );
    if (found !== (LOOKUPS * 3) / 4) throw new Error(`found ${found} of ${(LOOKUPS * 3) / 4} connections`);
    if (round > 0) runs[which]!.push(ns); // the first round warms up
  });
}
for (const instance of instances) await instance.shutdown({ drain: false });
process.stdout.write(
  `${JSON.stringify({
    lookups: catalogs.map(({ count }, which) => ({
      connections: count,
      nsPerLookup: Math.round(median(runs[which]!) * 10) / 10,
    })),
  })}\n`,
);
process.exit(0);
