/**
 * Where a server's CPU time went: self time summed by function and by file (package)
 * from a V8 .cpuprofile (`node --cpu-prof`; `BENCH_PROFILE=1 npm run bench` writes them).
 *
 *   tsx scripts/bench/summarize-profile.ts <file.cpuprofile> [top]
 */
import { parentsOf, readCpuProfile, type ProfileNode } from './cpu-profile.js';

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: summarize-profile.ts <file.cpuprofile> [top]');
const top = Number(topArg ?? 30);
const profile = readCpuProfile(file);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, index) =>
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
);
const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);

const shortUrl = (url: string) =>
  url.replace(/^file:\/\/.*?\/(node_modules|dist|scripts)\//, '$1/').replace(/^node:/, 'node:');
/** The package (or dist/ folder) a file belongs to. */
const owner = (url: string) => {
  const short = shortUrl(url);
  if (short === '') return '(native / V8)';
  const inModules = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(short);
  if (inModules) return inModules[1]!;
  if (short.startsWith('dist/')) return short.split('/').slice(0, 4).join('/');
  return short.startsWith('node:') ? 'node: (core)' : short;
};

const sum = (key: (node: ProfileNode) => string) => {
  const totals = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (node) totals.set(key(node), (totals.get(key(node)) ?? 0) + micros);
  }
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
};
const print = (title: string, rows: [string, number][]) => {
  console.log(`\n${title}`);
  for (const [name, micros] of rows)
    console.log(
      `${((micros / total) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(6)} ms  ${name}`,
    );
};

// Total time per function: every sample counts once for each distinct function on its stack.
const parentOf = parentsOf(profile);
const inclusive = () => {
  const totals = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const node = byId.get(at);
      if (!node || node.callFrame.url === '') continue;
      seen.add(
        `${node.callFrame.functionName || '(anonymous)'}  ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`,
      );
    }
    for (const name of seen) totals.set(name, (totals.get(name) ?? 0) + micros);
  }
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
};

console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
print(
  'self time by function',
  sum(
    (n) => `${n.callFrame.functionName || '(anonymous)'}  ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`,
  ),
);
print(
  'self time by package / file',
  sum((n) => owner(n.callFrame.url)),
);
print('total time by function (synchronous stacks: an async middleware counts from each resumption)', inclusive());
