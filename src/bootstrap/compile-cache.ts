import module from 'node:module';
import { fileURLToPath } from 'node:url';

/** What Node 22 added to node:module for its compile cache; the types of Node 20 declare neither. */
interface CompileCacheApi {
  /** Node 22.1 and later. */
  enableCompileCache?: (directory?: string) => { status: number; message?: string; directory?: string };
  /** Node 22.10 and later. */
  flushCompileCache?: () => void;
}
const nodeModule = module as typeof module & CompileCacheApi;

/**
 * Turns on Node's module compile cache, in `directory`, where Node has one (22.1 and
 * later): the V8 code of every module compiled from here on is written there, and read back
 * at the next start instead of compiled again. On Node 20 it does nothing. Never fails a
 * start: a folder that cannot be written leaves the start uncached (Node says so only in
 * what it returns). NODE_COMPILE_CACHE, when set, has already turned the cache on in the
 * folder it names, and NODE_DISABLE_COMPILE_CACHE=1 keeps it off: Node honours both.
 */
export function enableCompileCache(directory: URL): void {
  nodeModule.enableCompileCache?.(fileURLToPath(directory));
}

/**
 * Writes what the compile cache gathered so far (Node 22.10 and later; before that Node
 * writes it only as the process exits), so that a process stopped without exiting, by
 * SIGKILL or a crash, leaves it for the next start. Does nothing where no cache is on.
 */
export function flushCompileCache(): void {
  nodeModule.flushCompileCache?.();
}
