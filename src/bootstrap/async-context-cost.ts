/**
 * Whether this Node keeps an async context (the active span, when traces are on) with
 * async hooks, which every await of every request then pays, rather than with V8's
 * continuation data (AsyncContextFrame), which costs nothing until read. Node 24 uses the
 * frame unless `--no-async-context-frame`; Node 22 from 22.7 with
 * `--experimental-async-context-frame`; Node 20 never. Measured here: an await costs about
 * 150 ns with the hooks against 57 ns without (docs/performance.md, Telemetry).
 */
export function asyncContextUsesHooks(version: string, flags: readonly string[]): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major >= 24) return flags.includes('--no-async-context-frame');
  if (major === 22 && minor >= 7) return !flags.includes('--experimental-async-context-frame');
  return true;
}

/** The flags this process started with: its command line's and NODE_OPTIONS'. */
export function nodeFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/).filter(Boolean)];
}
