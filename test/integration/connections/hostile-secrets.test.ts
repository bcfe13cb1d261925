import { expect } from 'chai';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { auditEvents, eventually, oidcConnection, startWithConnections } from '../../support/connection-app.js';
import { ConnectionFolder, readiness } from '../../support/connection-folder.js';
import { freePort } from '../../support/oidc-app.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

const GLOBEX_SECRET = 'SENTINEL-globex-client-secret-5c1e';
/** A customer's connection, accepted, whose "secret" is chosen to cut the audit marker out of every log line. */
const AUDIT_MARKER_SECRET = '"audit":true';
/** A file refused for a missing Organization: its secret was never used, and must not steer the log. */
const REFUSED_SECRET = 'SENTINEL-refused-file-secret-8d2a';
const REFUSED_AUDIT_SECRET = '","event":"signin.succeeded';

/**
 * Customers write the files of the watched connections folder, secrets included: what they
 * choose as a secret must not make the log cut text out of other lines. Every line stays
 * one JSON object with its audit fields; a connection's secret is redacted while it is in
 * force, a refused file's is never learned, a removed connection's is forgotten.
 */
describe('connections: a secret chosen to corrupt the log', function () {
  this.timeout(30_000);
  let app: RunningGatehouse;
  let folder: ConnectionFolder;
  let idp: DemoIdentityProvider;

  before(async () => {
    const port = await freePort();
    folder = await ConnectionFolder.create();
    idp = await startDemoIdentityProvider({
      clients: [
        { clientId: 'globex-client', clientSecret: GLOBEX_SECRET, redirectUris: [], postLogoutRedirectUris: [] },
      ],
    });
    await folder.write(
      'globex',
      oidcConnection('globex', ['globex.test'], idp.issuer, { clientId: 'globex-client', clientSecret: GLOBEX_SECRET }),
    );
    await folder.write(
      'hostile',
      oidcConnection('hostile', ['hostile.test'], 'https://login.hostile.example', {
        clientId: 'hostile-client',
        clientSecret: AUDIT_MARKER_SECRET,
      }),
    );
    const refused = (secret: string, domain: string) => ({
      ...oidcConnection('x', [domain], `https://login.${domain}`, { clientId: 'c', clientSecret: secret }),
      Organization: undefined,
    });
    await folder.write('refused', refused(REFUSED_SECRET, 'refused.example'));
    await folder.write('refusedaudit', refused(REFUSED_AUDIT_SECRET, 'refused-audit.example'));
    app = await startWithConnections(port, {}, { ProjectTemplate__Authentication__ConnectionsDirectory: folder.path });
  });
  after(async () => {
    await app?.close();
    await Promise.all([idp?.close(), folder?.dispose()]);
  });

  /** A request whose path carries `text`: the request log line writes its path as sent. */
  const requestNaming = async (text: string) => {
    const path = `/probe/${text}`;
    await (await fetch(`${app.url}${path}`)).body?.cancel();
    return path;
  };
  const requestLine = (path: string) => {
    const lines = app.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request' && typeof line.url === 'string' && line.url.startsWith('/probe/'));
    const found = lines.find((line) => line.url === path || line.url === path.replace(GLOBEX_SECRET, '[REDACTED]'));
    expect(found, path).not.to.equal(undefined);
    return found!.url;
  };

  it('keeps every log line one JSON object, with its audit fields, whatever a connection file gives as its secret', async () => {
    const { connections } = await readiness(app.url);
    expect(connections).to.include({ globex: 'idle', hostile: 'idle' });
    expect(connections.refused).not.to.equal('idle');
    // An answer nobody asked for: refused, and audited.
    await (await fetch(`${app.url}/connections/globex/signin-oidc?code=c&state=s`)).body?.cancel();
    await eventually('the audit line', async () => auditEvents(app.logs, 'signin.failed').length > 0);
    for (const line of app.logs) expect(() => JSON.parse(line) as unknown, line).not.to.throw();
    const audit = app.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit);
    expect(audit.find((line) => line.event === 'signin.failed')).to.include({
      audit: true,
      event: 'signin.failed',
      connection: 'globex',
      organization: 'globex',
    });
    expect(app.logs.join('')).to.contain('"audit":true');
  });

  it("redacts a connection's secret while it is in force, never a refused file's, and forgets a removed connection's", async () => {
    expect(requestLine(await requestNaming(GLOBEX_SECRET))).to.equal('/probe/[REDACTED]');
    expect(requestLine(await requestNaming(REFUSED_SECRET))).to.equal(`/probe/${REFUSED_SECRET}`);
    await folder.remove('globex');
    await eventually('globex removed', async () => !('globex' in (await readiness(app.url)).connections), 5_000);
    expect(requestLine(await requestNaming(`${GLOBEX_SECRET}-after`))).to.equal(`/probe/${GLOBEX_SECRET}-after`);
    for (const line of app.logs) expect(() => JSON.parse(line) as unknown, line).not.to.throw();
  });
});
