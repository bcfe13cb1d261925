import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import { yourAppPort } from '../../../scripts/your-app-port.js';

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('the port the demo suggests for your own app', () => {
  it('is never the demo’s own port (PORT=3001 npm run demo), and is free', async () => {
    const demo = await listenOn(0);
    const demoPort = (demo.address() as { port: number }).port;
    try {
      // The demo holds its port, as `PORT=3001 npm run demo` holds 3001.
      const suggested = await yourAppPort(demoPort, demoPort);
      expect(suggested).not.to.equal(demoPort);
      (await listenOn(suggested)).close();
    } finally {
      demo.close();
    }
  });

  it('is another free port when the preferred one is taken by something else', async () => {
    const other = await listenOn(0);
    const taken = (other.address() as { port: number }).port;
    try {
      const suggested = await yourAppPort(taken - 1, taken);
      expect(suggested).not.to.equal(taken);
      (await listenOn(suggested)).close();
    } finally {
      other.close();
    }
  });

  it('is the preferred one when it is free and not the demo’s', async () => {
    const probe = await listenOn(0);
    const free = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    expect(await yourAppPort(free + 1, free)).to.equal(free);
  });
});
