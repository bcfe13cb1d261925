import type { Logger } from '../ports/logger.js';
import type { ConnectionRegistry } from './connection-registry.js';

/** Declarations checked between two looks at the clock: a few milliseconds' worth. */
const BATCH = 32;

/**
 * Checks the registry's deferred declarations (a large catalog read at start) once the
 * instance runs, a slice of about `sliceMs` at a time, each slice its own turn of the event
 * loop (setImmediate), so that requests are answered between slices; a request that needs
 * one sooner checks it itself (ConnectionRegistry). Says in the log when all are checked, and
 * how many are in force and refused. Returns the stop; nothing to do, nothing is scheduled.
 */
export function checkInBackground(registry: ConnectionRegistry, logger: Logger, sliceMs = 5): () => void {
  if (registry.deferredCount === 0) return () => undefined;
  const started = performance.now();
  let next: NodeJS.Immediate | undefined;
  const slice = () => {
    const until = performance.now() + sliceMs;
    let left: boolean;
    do left = registry.checkDeferred(BATCH);
    while (left && performance.now() < until);
    if (left) {
      next = setImmediate(slice);
      return;
    }
    next = undefined;
    logger.info(
      {
        connections: registry.size,
        refused: registry.refused().size,
        ms: Math.round(performance.now() - started),
      },
      'connections read from the catalog at start are checked',
    );
  };
  next = setImmediate(slice);
  return () => {
    if (next) clearImmediate(next);
  };
}
