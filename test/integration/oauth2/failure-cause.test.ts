/**
 * What a failed provider request is logged with: the real errors openid-client throws
 * against a real server, summarised in the words an operator acts on, and nothing else.
 */
import { expect } from 'chai';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { failureCause } from '../../../src/adapters/oauth2/failure-cause.js';

async function discoveryError(authority: string, timeoutSeconds = 2): Promise<unknown> {
  try {
    await client.discovery(new URL(authority), 'x', {}, undefined, {
      execute: [client.allowInsecureRequests],
      timeout: timeoutSeconds,
    });
  } catch (error) {
    return error;
  }
  throw new Error('discovery succeeded');
}

function serve(handler: Parameters<typeof createHttpServer>[1]): Promise<{ origin: string; server: Server }> {
  return new Promise((resolve) => {
    const server = createHttpServer(handler).listen(0, '127.0.0.1', () => {
      resolve({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server });
    });
  });
}

describe('why a provider request failed (failureCause)', function () {
  this.timeout(10_000);

  it('a refused connection: ECONNREFUSED', async () => {
    const { origin, server } = await serve(() => undefined);
    await new Promise((resolve) => server.close(resolve));
    expect(failureCause(await discoveryError(origin))).to.equal('ECONNREFUSED');
  });

  it('a port fetch refuses outright (9, discard): "bad port"', async () => {
    expect(failureCause(await discoveryError('http://127.0.0.1:9'))).to.equal('bad port');
  });

  it('an answer with an error status, whose body is never read out: HTTP 404', async () => {
    const { origin, server } = await serve((_, response) => {
      response.statusCode = 404;
      response.end('SENTINEL-body');
    });
    try {
      const cause = failureCause(await discoveryError(origin));
      expect(cause).to.equal('HTTP 404');
    } finally {
      server.close();
    }
  });

  it('a server that never answers: timed out', async () => {
    const { origin, server } = await serve(() => undefined);
    try {
      expect(failureCause(await discoveryError(origin, 0.3))).to.equal('timed out');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('plain http spoken to where TLS was expected: a TLS code', async () => {
    const { origin, server } = await serve((_, response) => response.end('hello'));
    try {
      expect(failureCause(await discoveryError(origin.replace('http:', 'https:')))).to.match(/^TLS [A-Z_]+$/);
    } finally {
      server.close();
    }
  });
});
