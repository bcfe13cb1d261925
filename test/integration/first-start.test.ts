/**
 * What a newcomer meets in the first minutes at a terminal: a port still held by an
 * earlier run is said in one line, with the way out, and Ctrl+C in development stops at
 * once, so that the next start finds the port free.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import { freePort } from '../../scripts/free-port.js';
import { exitOf, listeningUrl, printed, spawnEntryPoint, spawnMain } from '../support/run-main.js';

const OIDC = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';
const SECRET = 'SENTINEL-client-secret-4b1d';

/** A port nothing listens on: connecting to it is refused (ECONNREFUSED). */
async function closedPort(): Promise<number> {
  const { port, server } = await occupiedPort();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function occupiedPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, server });
    });
  });
}

describe('the first start at a terminal', function () {
  this.timeout(60_000);

  for (const [name, args] of [
    ['npm start', ['--import', 'tsx', 'src/bootstrap/main.ts']],
    ['npm run demo', ['--import', 'tsx', 'scripts/demo.ts']],
  ] as const) {
    it(`${name} on a port already taken says so in one line, names PORT, and exits 1 without a stack trace`, async () => {
      const { port, server } = await occupiedPort();
      try {
        const { child, output } = spawnEntryPoint(args, { NODE_ENV: 'development', PORT: String(port) });
        expect(await exitOf(child)).to.equal(1);
        const { stdout, stderr } = output();
        expect(stderr).to.match(new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use.*PORT=\\d+`));
        expect(`${stdout}${stderr}`).not.to.match(/^\s+at /m);
        expect(`${stdout}${stderr}`).not.to.contain('EADDRINUSE');
      } finally {
        server.close();
      }
    });
  }

  it('stops at once on Ctrl+C (SIGINT) in development, whatever the drain, so the port is free again', async () => {
    const { child, output } = spawnMain({
      NODE_ENV: 'development',
      ProjectTemplate__Hosting__ShutdownDrainSeconds: '5',
    });
    const url = await listeningUrl(output, child);
    const started = performance.now();
    child.kill('SIGINT');
    expect(await exitOf(child)).to.equal(0);
    expect(performance.now() - started, 'no 5 s drain').to.be.below(2_000);
    await fetch(`${url}/health/live`).then(
      () => expect.fail('still listening'),
      () => undefined,
    );
  });

  it('still drains on SIGTERM in development (what an orchestrator sends)', async () => {
    const { child, output } = spawnMain({
      NODE_ENV: 'development',
      ProjectTemplate__Hosting__ShutdownDrainSeconds: '1',
    });
    const url = await listeningUrl(output, child);
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await fetch(`${url}/health/ready`)).status, 'serving while draining').to.equal(503);
    expect(await exitOf(child)).to.equal(0);
  });

  it('says at a development start which provider cannot be reached: host, cause and the key to look at', async () => {
    const [port, closed] = [await freePort(), await closedPort()];
    const { child, output } = spawnMain({
      NODE_ENV: 'development',
      PORT: String(port),
      ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
      [`${OIDC}Enabled`]: 'true',
      [`${OIDC}Authority`]: `http://127.0.0.1:${closed}`,
      [`${OIDC}ClientId`]: 'gatehouse',
      [`${OIDC}ClientSecret`]: SECRET,
    });
    try {
      await listeningUrl(output, child);
      const [said] = await printed(output, child, /^.*cannot be reached.*$/m, 15_000);
      expect(said)
        .to.contain(`127.0.0.1:${closed}`)
        .and.contain('ECONNREFUSED')
        .and.contain('ProjectTemplate:Authentication:Providers:OpenIdConnect:Authority');
      // The request's own log line names where it went and why, as every failed provider request does.
      const [failed] = await printed(output, child, /^.*OpenID Connect step failed.*$/m);
      expect(JSON.parse(failed)).to.include({ stage: 'metadata', host: `127.0.0.1:${closed}`, cause: 'ECONNREFUSED' });
      expect(`${output().stdout}${output().stderr}`).not.to.contain(SECRET);
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  });

  it('neither waits for nor tries the provider at a production start', async () => {
    const closed = await closedPort();
    const { child, output } = spawnMain({
      NODE_ENV: 'production',
      ProjectTemplate__Hosting__PublicOrigin: 'https://app.example.com',
      ProjectTemplate__Hosting__TrustProxy: 'true',
      [`${OIDC}Enabled`]: 'true',
      [`${OIDC}Authority`]: `https://127.0.0.1:${closed}`,
      [`${OIDC}ClientId`]: 'gatehouse',
      [`${OIDC}ClientSecret`]: SECRET,
    });
    await listeningUrl(output, child);
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(0);
    expect(output().stdout).not.to.contain('cannot be reached').and.not.contain('step failed');
  });
});
