import { createServer } from 'node:net';

/**
 * Ports picked from below the kernel's ephemeral range (Linux hands out 32768-60999 for
 * port 0 and outgoing connections), so that a server listening on port 0 meanwhile (an
 * identity provider started next) or an outgoing connection can never be given the port
 * this reserved.
 */
const LOWEST = 10_000;
const HIGHEST = 32_000;

/**
 * A port that is free now, for an app whose redirect URI must be configured before it
 * listens (absolute URLs come from settings, never from the Host header), or a process
 * asked on a known port from the moment it is spawned (the bench's cold start). Tried at
 * random in a range the kernel does not hand out by itself, until one can be bound.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST));
    if (await canListen(port)) return port;
  }
  throw new Error('no free port found');
}

/** Whether `port` on 127.0.0.1 can be listened on now. */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
