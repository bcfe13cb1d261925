import type { Server } from 'node:http';
import { COOKIE_POSTURE } from '../../scripts/cookie-posture.js';
import { createGatehouse, type Gatehouse, type GatehouseOptions } from '../../src/bootstrap/gatehouse.js';
import { formatProblem, StartupError } from '../../src/bootstrap/startup-error.js';
import { STAND_IN_PROVIDER_KEYS } from './stand-in-provider-keys.js';

export interface RunningGatehouse {
  url: string;
  gatehouse: Gatehouse;
  /** Every log line written so far, as written (after redaction). */
  logs: string[];
  close(): Promise<void>;
}

/** What a test may choose beyond the settings: its governance, its providers, and the port (free by default). */
export interface StartOptions extends Pick<GatehouseOptions, 'governance' | 'providers' | 'telemetry' | 'auditLog'> {
  /** A port chosen beforehand, when a provider must know the app's redirect URI before it listens. */
  port?: number;
}

/**
 * A whole Gatehouse, composed as in production, listening on a loopback port, with
 * Gatehouse's built-in authentication posture (COOKIE_POSTURE) whatever this project's
 * config/appsettings.json chose, then `env`. For suites that exercise sign-in, sessions
 * and policies as mechanisms.
 */
export function startGatehouse(
  env: Record<string, string | undefined> = {},
  options: StartOptions = {},
): Promise<RunningGatehouse> {
  return start({ ...COOKIE_POSTURE, ...env }, options);
}

/**
 * The same, but with the authentication posture this project is configured with
 * (config/appsettings.json, .env): for suites that check the posture the project ships.
 * An enabled provider gets stand-in keys (STAND_IN_PROVIDER_KEYS), never the operator's.
 */
export function startGatehouseAsConfigured(env: Record<string, string | undefined> = {}): Promise<RunningGatehouse> {
  return start({ ...STAND_IN_PROVIDER_KEYS, ...env }, {});
}

async function start(env: Record<string, string | undefined>, options: StartOptions): Promise<RunningGatehouse> {
  const logs: string[] = [];
  const gatehouse = await createGatehouse({
    env: {
      NODE_ENV: 'test',
      ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
      ProjectTemplate__Logging__Level: 'debug',
      ...env,
    },
    logDestination: { write: (line: string) => void logs.push(line) },
    governance: options.governance,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...(options.auditLog ? { auditLog: options.auditLog } : {}),
  }).catch((error: unknown) => {
    // The test report then names every problem, as `npm start` would.
    if (error instanceof StartupError) error.message += `:\n${error.problems.map(formatProblem).join('\n')}`;
    throw error;
  });
  const server: Server = await gatehouse.listen(options.port ?? 0, '127.0.0.1');
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return {
    url: `http://127.0.0.1:${address.port}`,
    gatehouse,
    logs,
    close: () => gatehouse.shutdown(),
  };
}
