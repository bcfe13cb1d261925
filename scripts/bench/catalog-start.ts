/**
 * Cold starts on a PostgreSQL catalog of one connection and of 10,000, for one or more
 * bundles side by side (a build before a change and one after it, say): the bench's
 * catalog start (catalog-scale.ts) alone, in a minute rather than the whole catalog extra.
 * Every round starts each bundle once on each catalog, so a busy neighbour slows all alike.
 *
 *   tsx scripts/bench/catalog-start.ts <starts of each> <bundle main.js>... [--prof <dir>]
 *
 * A bundle is `dist/bundle/main.js` after `npm run build`, or another commit's under
 * bench-results/commits/<hash>/ (build-commit.ts). With --prof, each start runs under
 * `--cpu-prof` into <dir>/<bundle's index>-<count>/ (summarize-profile.ts reads them).
 * Prints, per bundle, the median time to ready and the mean CPU until then, with one
 * connection and with 10,000, and their ratios: compare the CPU, which a busy machine
 * moves less than the time.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newApiKey } from '../../src/adapters/koa/api-keys.js';
import { startPostgres } from '../local-postgres/postgres-server.js';
import { catalogInstanceEnv, newCatalogDatabase, seedCatalog } from './catalog-database.js';
import { coldStartOnce, meanOf, median, type Start } from './cold-start.js';
import { pinSelfToLoadCore } from './processes.js';

const MANY = 10_000;
const args = process.argv.slice(2);
const profIndex = args.indexOf('--prof');
const profDir = profIndex >= 0 ? resolve(args[profIndex + 1] ?? 'bench-results/catalog-start') : undefined;
const positional = profIndex >= 0 ? args.slice(0, profIndex) : args;
const starts = Number(positional[0]);
const bundles = positional.slice(1).map((bundle) => resolve(bundle));
if (!Number.isInteger(starts) || starts < 1 || bundles.length === 0)
  throw new Error('usage: catalog-start.ts <starts of each> <bundle main.js>... [--prof <dir>]');

pinSelfToLoadCore();
const server = await startPostgres(17);
try {
  const encryptionKey = randomBytes(32).toString('base64');
  const keys = { apiKeyHash: newApiKey(randomBytes).hash, encryptionKey };
  const catalog = async (name: string, count: number) => {
    const url = await newCatalogDatabase(server.connectionString, name);
    await seedCatalog(url, count, encryptionKey);
    return catalogInstanceEnv(url, keys);
  };
  const counts = [
    { count: 1, env: await catalog('catalog_one', 1) },
    { count: MANY, env: await catalog('catalog_many', MANY) },
  ];
  const results = bundles.map(() => counts.map((): Start[] => []));
  process.stdout.write(`${starts} rounds `);
  for (let round = 0; round < starts; round++) {
    for (const [b, bundle] of bundles.entries()) {
      for (const [c, { count, env }] of counts.entries()) {
        const flags: string[] = [];
        if (profDir) {
          const dir = join(profDir, `${b}-${count}`);
          mkdirSync(dir, { recursive: true });
          flags.push('--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${dir}`);
        }
        process.env.BENCH_MAIN = bundle;
        results[b]![c]!.push(await coldStartOnce(flags, { env }));
      }
    }
    process.stdout.write('.');
  }
  process.stdout.write('\n');
  for (const [b, bundle] of bundles.entries()) {
    const [one, many] = results[b]! as [Start[], Start[]];
    const ms = (list: Start[]) => median(list.map((start) => start.ms));
    const cpu = (list: Start[]) => meanOf(list.map((start) => start.cpuMs)) ?? NaN;
    console.log(
      `${bundle}: 1: ${ms(one).toFixed(0)} ms (CPU ${cpu(one).toFixed(0)} ms); ${MANY}: ${ms(many).toFixed(0)} ms (CPU ${cpu(many).toFixed(0)} ms); ratio ${(ms(many) / ms(one)).toFixed(2)}x, CPU ${(cpu(many) / cpu(one)).toFixed(2)}x; runs at ${MANY}: ${many.map((start) => start.ms.toFixed(0)).join(', ')}`,
    );
  }
} finally {
  await server.close();
}
