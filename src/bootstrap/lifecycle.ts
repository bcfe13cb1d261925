import type { Server } from 'node:http';
import type Koa from 'koa';
import type { DrainState } from '../application/drain-state.js';
import type { SessionStores } from './session-stores.js';

export interface Lifecycle {
  /** Connects the stores, then listens. */
  listen(port: number, host: string): Promise<Server>;
  /**
   * Readiness 503 at once, keep serving for the drain period, stop accepting, let requests
   * finish, close stores. `drain: false` skips the drain period (Ctrl+C in development).
   */
  shutdown(options?: { drain?: boolean }): Promise<void>;
}

export interface LifecycleParts {
  app: Koa;
  stores: SessionStores;
  drain: DrainState;
  drainSeconds: number;
  /** Starts watching what can change while the instance runs (the connections folder); returns the stop. */
  watch?: () => () => void;
  /** The telemetry's own listener (Prometheus) and exporters: opened before the app listens, flushed after it closed. */
  telemetry?: { listen(): Promise<unknown>; close(): Promise<void> };
  /**
   * What serves requests until the last ends (the directory's store and subscriptions): closed
   * once the server has closed, beside the session stores, never while draining.
   */
  closeAfterServing?: () => Promise<void>;
}

export function lifecycle({
  app,
  stores,
  drain,
  drainSeconds,
  watch = () => () => undefined,
  telemetry = { listen: async () => undefined, close: async () => undefined },
  closeAfterServing = async () => undefined,
}: LifecycleParts): Lifecycle {
  let server: Server | undefined;
  let stopWatching: (() => void) | undefined;
  return {
    listen: async (port, host) => {
      await stores.connect();
      await telemetry.listen();
      stopWatching ??= watch();
      return new Promise((resolve, reject) => {
        const listening = app.listen(port, host, () => resolve(listening));
        listening.once('error', reject);
        server = listening;
      });
    },
    shutdown: async ({ drain: draining = true } = {}) => {
      stopWatching?.();
      drain.startDraining();
      if (draining) await new Promise((resolve) => setTimeout(resolve, drainSeconds * 1000));
      if (server) {
        const closed = new Promise((resolve) => server?.close(resolve));
        server.closeIdleConnections();
        await closed;
      }
      await Promise.all([stores.close(), closeAfterServing()]);
      await telemetry.close();
    },
  };
}
