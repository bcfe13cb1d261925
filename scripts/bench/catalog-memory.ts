/**
 * Memory held per idle connection of the PostgreSQL catalog (declared, nobody signed in
 * through it), at a given count.
 *
 *   node --expose-gc --import tsx scripts/bench/catalog-memory.ts [count]
 *
 * With DATABASE_URL naming a migrated, empty catalog and the administration settings of
 * catalogInstanceEnv (catalog-database.ts) in the environment. Composes the compiled
 * Gatehouse in the production posture on it and listens (which starts the catalog's watch),
 * then writes `count` connections with SQL (seedCatalog) and waits until the running
 * instance has added every one, as it adds those another instance writes: the growth of
 * V8 heap used plus external memory after full collections, per connection. It counts
 * what the instance keeps of each: the registry's connection, and the digest of the entry
 * that the watch compares later reads with. Prints one JSON line.
 */
import { seedCatalog } from './catalog-database.js';
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';
import { productionEnv } from './rows.js';
import { printGrowth, settledMemory } from './connection-memory-growth.js';

const count = Number(process.argv[2] ?? 10_000);
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const url = process.env.DATABASE_URL;
const encryptionKey = process.env.ProjectTemplate__Administration__EncryptionKeys__0;
if (!url || !encryptionKey) throw new Error('set DATABASE_URL and the administration settings (catalogInstanceEnv)');

let added = 0;
let refused = 0;
const { createGatehouse } = await loadCompiledGatehouse();
const gatehouse = await createGatehouse({
  rootDir: projectRoot,
  env: { ...process.env, ...productionEnv, ProjectTemplate__Session__Store: 'Memory' },
  logDestination: {
    write: (line: string) => {
      if (line.includes('"msg":"connection added"')) added += 1;
      if (line.includes('a connection declaration was refused')) refused += 1;
    },
  },
});
await gatehouse.listen(0, '127.0.0.1');
// The watch reads the (empty) catalog once it listens: let that settle before the first measure.
await new Promise((resolve) => setTimeout(resolve, 1_000));

const before = settledMemory();
await seedCatalog(url, count, encryptionKey);
const deadline = Date.now() + 120_000;
while (added + refused < count) {
  if (Date.now() > deadline) throw new Error(`only ${added} of ${count} connections were added within 120 s`);
  await new Promise((resolve) => setTimeout(resolve, 100));
}
if (refused > 0) throw new Error(`${refused} of the ${count} catalog entries were refused`);
const after = settledMemory();
await gatehouse.shutdown({ drain: false });

printGrowth(count, before, after);
process.exit(0);
