import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';

const prometheusInstalled = spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * A real Prometheus (Debian's `prometheus` package; .ci/run installs it) scrapes a running
 * Gatehouse's /metrics listener, and PromQL counts the sign-ins made through the demo
 * identity provider: the exposition is one Prometheus itself reads, not only our parser.
 */
describe('Telemetry: a real Prometheus scrapes Gatehouse', function () {
  this.timeout(40_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;
  let prometheus: ChildProcess | undefined;
  let dataDir: string;

  before(function () {
    if (!prometheusInstalled) {
      console.log('    (skipped: no prometheus binary here; CI installs Debian\'s "prometheus" package)');
      this.skip();
    }
  });

  afterEach(async () => {
    prometheus?.kill('SIGTERM');
    await app?.close();
    await idp?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a PromQL query with the number of sign-ins after two sign-ins', async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
    app = await startOidcApp(idp.issuer, port, {
      ProjectTemplate__Telemetry__Enabled: 'true',
      ProjectTemplate__Telemetry__PrometheusPort: '0',
    });
    for (const login of ['user', 'admin'] as const) {
      expect((await new TestBrowser().signIn(app.url, login)).status).to.equal(302);
    }
    const target = new URL((await app.gatehouse.metricsUrl()) ?? expect.fail('no metrics listener'));

    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-prometheus-'));
    writeFileSync(
      join(dataDir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: gatehouse\n    static_configs:\n      - targets: ['${target.host}']\n`,
    );
    const webPort = await freePort();
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dataDir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dataDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
      ],
      { stdio: 'ignore' },
    );
    const query =
      'sum(gatehouse_authentication_sign_ins_total{job="gatehouse",outcome="success",provider="OpenIdConnect"})';
    let value: string | undefined;
    for (let tries = 0; tries < 120 && value !== '2'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      value = await fetch(`http://127.0.0.1:${webPort}/api/v1/query?query=${encodeURIComponent(query)}`)
        .then((response) => response.json() as Promise<{ data?: { result?: Array<{ value?: [number, string] }> } }>)
        .then((body) => body.data?.result?.[0]?.value?.[1])
        .catch(() => undefined);
    }
    expect(value).to.equal('2');
  });
});
