import type { HostingSettings } from './settings.js';

/**
 * Seconds a host commonly allows between SIGTERM and SIGKILL (Kubernetes' default
 * `terminationGracePeriodSeconds`): a shutdown that ends inside it ends on its own terms.
 */
export const TERMINATION_GRACE_SECONDS = 30;

/**
 * Seconds allowed after the drain to stop accepting connections, let the requests in
 * flight finish and close the stores. Closing takes milliseconds when all is well;
 * past this allowance the process exits anyway, with code 1.
 */
export const CLOSING_SECONDS = 4;

/**
 * The longest `Hosting:ShutdownDrainSeconds` the startup rules accept: the drain and the
 * time to close fit the grace period, with a second to spare for the exit itself.
 */
export const MAX_SHUTDOWN_DRAIN_SECONDS = TERMINATION_GRACE_SECONDS - CLOSING_SECONDS - 1;

/**
 * Milliseconds after the first SIGTERM or SIGINT at which the process exits whether or
 * not shutdown has finished: the configured drain plus the time to close, so that a
 * shutdown going as it should is never cut short (at most 29 s, for the longest drain).
 */
export function forcedExitDelayMs(hosting: Pick<HostingSettings, 'ShutdownDrainSeconds'>): number {
  return (hosting.ShutdownDrainSeconds + CLOSING_SECONDS) * 1000;
}
