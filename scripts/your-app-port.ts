import { canListen, freePort } from './free-port.js';

/** The port the demo suggests for a Gatehouse of your own beside it, when it is free. */
export const PREFERRED_YOUR_APP_PORT = 3001;

/**
 * A port for your own app beside the demo: 3001, unless the demo itself runs there
 * (`PORT=3001 npm run demo`) or something else holds it; then any free port. Suggesting
 * the demo's own port would have `npm start` fail on a port already in use.
 */
export async function yourAppPort(demoPort: number, preferred = PREFERRED_YOUR_APP_PORT): Promise<number> {
  if (preferred !== demoPort && (await canListen(preferred))) return preferred;
  for (;;) {
    const port = await freePort();
    if (port !== demoPort) return port;
  }
}
