import type { Logger } from '../../application/ports/logger.js';

/**
 * Says in the log when an exporter starts failing, once, and once more when it works again:
 * an OTLP endpoint that is down is one line, not one per batch (and never one per request).
 */
export function reportedOnce(logger: Logger, signal: 'traces' | 'metrics'): (failed: boolean, error?: Error) => void {
  let failing = false;
  return (failed, error) => {
    if (failed && !failing) {
      failing = true;
      // The error's name only: an exporter's message may quote the endpoint and its headers.
      logger.warn(
        { signal, error: error?.name ?? 'unknown' },
        `telemetry: exporting ${signal} failed; they are dropped until the endpoint answers (reported once)`,
      );
    } else if (!failed && failing) {
      failing = false;
      logger.info({ signal }, `telemetry: exporting ${signal} works again`);
    }
  };
}
