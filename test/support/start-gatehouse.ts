import type { Server } from 'node:http';
import { createGatehouse, type Gatehouse, type GatehouseOptions } from '../../src/bootstrap/gatehouse.js';

export interface RunningGatehouse {
  url: string;
  gatehouse: Gatehouse;
  /** Every log line written so far, as written (after redaction). */
  logs: string[];
  close(): Promise<void>;
}

/** A whole Gatehouse, composed as in production, listening on a free loopback port. */
export async function startGatehouse(
  env: Record<string, string | undefined> = {},
  options: Pick<GatehouseOptions, 'governance'> = {},
): Promise<RunningGatehouse> {
  const logs: string[] = [];
  const gatehouse = await createGatehouse({
    env: {
      NODE_ENV: 'test',
      ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
      ProjectTemplate__Logging__Level: 'debug',
      ...env,
    },
    logDestination: { write: (line: string) => void logs.push(line) },
    ...options,
  });
  const server: Server = await gatehouse.listen(0, '127.0.0.1');
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return {
    url: `http://127.0.0.1:${address.port}`,
    gatehouse,
    logs,
    close: () => gatehouse.shutdown(),
  };
}
