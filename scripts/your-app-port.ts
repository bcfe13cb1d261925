import { canListen, freePort } from './free-port.js';

/** The port the demo suggests for a Gatehouse of your own beside it, when it is free. */
export const PREFERRED_YOUR_APP_PORT = 3001;
/** The demo's Prometheus listener: the OpenTelemetry Prometheus exporter's usual port, when it is free. */
export const PREFERRED_DEMO_METRICS_PORT = 9464;

/**
 * A port for your own app beside the demo: 3001, unless the demo itself runs there
 * (`PORT=3001 npm run demo`) or something else holds it; then any free port. Suggesting
 * the demo's own port would have `npm start` fail on a port already in use.
 */
export function yourAppPort(demoPort: number, preferred = PREFERRED_YOUR_APP_PORT): Promise<number> {
  return preferredPort(preferred, [demoPort]);
}

/**
 * `preferred` when it is free and none of `avoiding`, else a free port: the same address
 * from one run to the next (a bookmarked URL, a scrape configuration), whenever it can be.
 */
export async function preferredPort(preferred: number, avoiding: readonly number[]): Promise<number> {
  if (!avoiding.includes(preferred) && (await canListen(preferred))) return preferred;
  for (;;) {
    const port = await freePort();
    if (!avoiding.includes(port)) return port;
  }
}
