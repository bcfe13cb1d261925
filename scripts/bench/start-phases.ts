import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parentsOf, readCpuProfile, type CallFrame } from './cpu-profile.js';

/**
 * Microseconds of CPU per phase of a start. A phase named `group: detail` is one part of
 * its group (a package, a composition step); `groupOf` names the group.
 */
export type StartPhases = Map<string, number>;

export const groupOf = (phase: string): string => phase.split(': ')[0]!;

/**
 * Sorts the samples of one cold start's CPU profile into the phases of a start: Node's
 * own start, loading and parsing the bundle's files, running each package's top-level
 * code (named through the bundle's source map), composing the app (by each step
 * `createGatehouse` calls), listening, and the first answer. Idle time is not CPU, and the
 * shutdown after the first answer is not start: neither is counted.
 *
 * A function V8 compiles lazily counts where it is first called: a CommonJS package's
 * body, compiled when it is first required, counts to esbuild's `__commonJS` wrapper
 * (its own row), the settings validator's to the composition step that first runs it.
 */
export function startPhases(profileFile: string, isBundleFile: (url: string) => boolean): StartPhases {
  const profile = readCpuProfile(profileFile);
  const frameOf = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parentOf = parentsOf(profile);
  const phases: StartPhases = new Map();
  profile.samples.forEach((leafId, index) => {
    const stack: CallFrame[] = [];
    for (let id: number | undefined = leafId; id !== undefined; id = parentOf.get(id)) stack.unshift(frameOf.get(id)!);
    const phase = phaseOf(stack, isBundleFile);
    if (phase !== undefined) phases.set(phase, (phases.get(phase) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return phases;
}

const SHUTDOWN = new Set(['stop', 'shutdown', 'exit', 'reallyExit']);

function phaseOf(stack: readonly CallFrame[], isBundleFile: (url: string) => boolean): string | undefined {
  const leaf = stack[stack.length - 1]!;
  const named = (name: string) => stack.findIndex((frame) => frame.functionName === name);
  if (leaf.functionName === '(idle)' || stack.some((frame) => SHUTDOWN.has(frame.functionName))) return undefined;
  const composing = named('createGatehouse');
  if (composing >= 0) return `composing the app: ${stack[composing + 1]?.functionName || '(its own code)'}`;
  if (named('parserOnIncoming') >= 0)
    return `the first answer: ${stack.some((frame) => frame.url.includes('undici')) ? 'Node’s fetch (undici)' : 'the rest'}`;
  if (named('listen') >= 0) return 'listening';
  if (named('compileSourceTextModule') >= 0) return 'loading the bundle: parsing its ES modules';
  const innermost = stack.findLast((frame) => isBundleFile(frame.url));
  if (innermost) return `running the packages’ top-level code: ${packageOf(innermost)}`;
  if (stack.some((frame) => frame.url.startsWith('node:internal/modules')))
    return 'loading the bundle: finding and reading its files, the built-in modules they import';
  if (leaf.functionName === '(garbage collector)') return 'the garbage collector';
  return 'Node’s own start';
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/** The package (or Gatehouse's own source) a bundle position came from, by the bundle's source map. */
function packageOf(frame: CallFrame): string {
  if (!sourceMaps.has(frame.url)) {
    try {
      sourceMaps.set(frame.url, new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(frame.url)}.map`, 'utf8'))));
    } catch {
      sourceMaps.set(frame.url, undefined);
    }
  }
  const entry = sourceMaps.get(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  // An unmapped position finds no entry, or one whose originalSource is undefined.
  const source = (entry as { originalSource?: string } | undefined)?.originalSource ?? '';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (inModules) return inModules[1]!;
  if (source !== '') return 'the application’s own modules';
  // Unmapped: the bundle's runtime, where a package's body, compiled when first required, counts.
  return 'compiling each package’s body when first required (esbuild’s wrapper)';
}
