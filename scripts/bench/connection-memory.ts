/**
 * Memory held per idle connection (declared, nobody signed in through it), at a given count.
 *
 *   node --expose-gc --import tsx scripts/bench/connection-memory.ts [count]
 *
 * Composes the compiled Gatehouse in the production posture with an empty connections
 * folder and listens (which starts watching the folder), then writes `count` connection
 * files (scripts/bench/connection-folder.ts) and waits until the running instance has
 * added every one, as it adds a customer's new file: the growth of V8 heap used plus
 * external memory after full collections, per connection. Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConnectionFolder } from './connection-folder.js';
import { loadCompiledGatehouse, projectRoot } from './dist-modules.js';
import { productionEnv } from './rows.js';
import { printGrowth, settledMemory } from './connection-memory-growth.js';

const count = Number(process.argv[2] ?? 1000);
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const folder = mkdtempSync(join(tmpdir(), 'gatehouse-bench-connections-'));
let added = 0;
let refused = 0;
const { createGatehouse } = await loadCompiledGatehouse();
const gatehouse = await createGatehouse({
  rootDir: projectRoot,
  env: {
    ...process.env,
    ...productionEnv,
    ProjectTemplate__Session__Store: 'Memory',
    ProjectTemplate__Authentication__ConnectionsDirectory: folder,
  },
  logDestination: {
    write: (line: string) => {
      if (line.includes('"msg":"connection added"')) added += 1;
      if (line.includes('a connection declaration was refused')) refused += 1;
    },
  },
});
await gatehouse.listen(0, '127.0.0.1');

const before = settledMemory();
writeConnectionFolder(folder, count);
const deadline = Date.now() + 60_000;
while (added + refused < count) {
  if (Date.now() > deadline) throw new Error(`only ${added} of ${count} connections were added within 60 s`);
  await new Promise((resolve) => setTimeout(resolve, 100));
}
if (refused > 0) throw new Error(`${refused} of the ${count} connection files were refused`);
const after = settledMemory();
await gatehouse.shutdown();
rmSync(folder, { recursive: true, force: true });

printGrowth(count, before, after);
process.exit(0);
