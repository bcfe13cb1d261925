/**
 * What `npm start` runs is the esbuild bundle, not the sources the other suites import:
 * these tests build it (into test-artifacts/, inside the project, where it finds views/
 * and public/ as dist/bundle/ does) and use it as a separate process. Every part loaded
 * on first use is reached: views, static files, the OpenID Connect adapter (a sign-in
 * against a real provider) and, with REDIS_URL, the Redis store; plus the generated
 * settings validator, and SAML (its schema check is libxml2 in WebAssembly) from a copy of
 * the bundle deployed without node_modules.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoIdentityProvider } from '../../scripts/demo-identity-provider.js';
import { bundleGatehouse, projectRoot } from '../../scripts/build/bundle-gatehouse.js';
import { CLIENT_SECRET, freePort, startIdentityProvider, TestBrowser } from '../support/oidc-app.js';
import { exitOf, listeningUrl, spawnEntryPoint, type SpawnedProcess } from '../support/run-main.js';
import { SamlBrowser, SP_ENTITY_ID } from '../support/saml-app.js';
import { SamlTestIdentityProvider } from '../support/saml-identity-provider.js';
import { aggregateXml } from '../../scripts/saml/federation-metadata.js';
import { makeSigningCredential } from '../../scripts/saml/signing-credential.js';
import { OFF_THREAD_ABOVE_BYTES } from '../../src/adapters/saml/metadata-reader.js';
import { startPostgres } from '../support/postgres-server.js';

const bundleDir = join(projectRoot, 'test-artifacts', 'bundle');
const compileCacheDir = join(bundleDir, 'compile-cache');
/** Node 22.1 and later; the types of Node 20 do not declare it. */
const nodeHasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** Every file under `dir`, at any depth (Node keeps the cache in a folder per Node version). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}
const OIDC = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';

function runBundle(env: Record<string, string>): SpawnedProcess {
  return spawnEntryPoint([join(bundleDir, 'main.js')], env);
}

describe('the production bundle (what npm start runs)', function () {
  this.timeout(30_000);
  const running: ChildProcess[] = [];

  before(async () => {
    await bundleGatehouse(bundleDir);
  });
  afterEach(async () => {
    for (const child of running.splice(0)) {
      child.kill('SIGTERM');
      await exitOf(child);
    }
  });

  it('serves the probes, a rendered page, a static file and a refusal, with nothing imported at start missing', async () => {
    const { child, output } = runBundle({
      NODE_ENV: 'production',
      ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1',
      ProjectTemplate__Hosting__TrustProxy: 'true',
    });
    running.push(child);
    const url = await listeningUrl(output, child);
    expect((await fetch(`${url}/health/ready`)).status).to.equal(200);
    const login = await fetch(`${url}/Account/Login`);
    expect(login.status).to.equal(200);
    expect(await login.text()).to.contain('<h1>Sign in</h1>');
    const styles = await fetch(`${url}/styles.css`);
    expect(styles.status).to.equal(200);
    expect(styles.headers.get('content-type')).to.contain('text/css');
    expect((await fetch(`${url}/api/app-info`)).status).to.equal(401);
    expect(output().stderr).to.equal('');
  });

  (nodeHasCompileCache ? it : it.skip)(
    `keeps the code a start compiled in compile-cache/ beside it once listening, even if killed, and the next start reads it back${nodeHasCompileCache ? '' : ` (skipped: Node ${process.version} has no compile cache)`}`,
    async () => {
      rmSync(compileCacheDir, { recursive: true, force: true });
      const first = runBundle({});
      running.push(first.child);
      await listeningUrl(first.output, first.child);
      first.child.kill('SIGKILL'); // no exit of its own, where Node would write the cache anyway
      await exitOf(first.child);
      expect(filesUnder(compileCacheDir)).not.to.deep.equal([]);

      const second = runBundle({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
      running.push(second.child);
      const url = await listeningUrl(second.output, second.child);
      expect((await fetch(`${url}/health/ready`)).status).to.equal(200);
      // The application itself (its chunk), not only the launcher's helpers, came from the cache
      // (Node 24 says "code cache for ESM <path> was accepted", Node 22 "cache for <file URL> was accepted").
      expect(second.output().stderr).to.match(/cache for (?:ESM )?\S+\/chunks\/main-\w+\.js was accepted/);
    },
  );

  (nodeHasCompileCache ? it.skip : it)(
    `starts as before on a Node without a compile cache, leaving no compile-cache/${nodeHasCompileCache ? ` (skipped: Node ${process.version} has one)` : ''}`,
    async () => {
      rmSync(compileCacheDir, { recursive: true, force: true });
      const { child, output } = runBundle({});
      running.push(child);
      const url = await listeningUrl(output, child);
      expect((await fetch(`${url}/health/ready`)).status).to.equal(200);
      child.kill('SIGTERM');
      expect(await exitOf(child)).to.equal(0);
      expect(existsSync(compileCacheDir)).to.equal(false);
      expect(output().stderr).to.equal('');
    },
  );

  it('reports a wrongly typed setting through the generated validator and exits 1', async () => {
    const { child, output } = runBundle({ ProjectTemplate__Authentication__Enabled: 'maybe' });
    expect(await exitOf(child)).to.equal(1);
    expect(output().stderr).to.contain('ProjectTemplate:Authentication:Enabled must be a boolean');
  });

  describe('signed in through a real OpenID provider', () => {
    let idp: DemoIdentityProvider;
    let appUrl: string;

    before(async () => {
      appUrl = `http://127.0.0.1:${await freePort()}`;
      idp = await startIdentityProvider([appUrl]);
    });
    after(async () => idp.close());

    async function signInThrough(storeEnv: Record<string, string>): Promise<void> {
      const { child, output } = runBundle({
        NODE_ENV: 'test',
        PORT: new URL(appUrl).port,
        ProjectTemplate__Hosting__PublicOrigin: appUrl,
        [`${OIDC}Enabled`]: 'true',
        [`${OIDC}Authority`]: idp.issuer,
        [`${OIDC}ClientId`]: 'gatehouse-test',
        [`${OIDC}ClientSecret`]: CLIENT_SECRET,
        ...storeEnv,
      });
      running.push(child);
      await listeningUrl(output, child);
      const browser = new TestBrowser();
      const callback = await browser.signIn(appUrl, 'admin', '/api/app-info');
      expect(callback.status).to.equal(302);
      expect(callback.headers.get('location')).to.equal('/api/app-info');
      expect((await browser.get(`${appUrl}/api/app-info`)).status).to.equal(200);
      expect((await new TestBrowser().get(`${appUrl}/api/app-info`)).status).to.equal(401);
      expect(output().stdout + output().stderr).not.to.contain(CLIENT_SECRET);
    }

    it('with the memory store', async () => {
      await signInThrough({});
    });

    const redisUrl = process.env.REDIS_URL ?? '';
    (redisUrl ? it : it.skip)(`with the Redis store${redisUrl ? '' : ' (skipped: REDIS_URL is not set)'}`, async () => {
      await signInThrough({
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: redisUrl,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
      });
    });
  });

  describe('deployed as a folder of its own (the bundle, package.json, config, views, public; no node_modules)', () => {
    let folder: string;
    let idp: SamlTestIdentityProvider;
    let appUrl: string;
    const runDeployed = (env: Record<string, string> = {}) =>
      spawnEntryPoint([join(folder, 'dist', 'bundle', 'main.js')], {
        NODE_ENV: 'test',
        PORT: new URL(appUrl).port,
        ProjectTemplate__Hosting__PublicOrigin: appUrl,
        ProjectTemplate__Authentication__Providers__Saml2__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Saml2__EntityId: SP_ENTITY_ID,
        ProjectTemplate__Authentication__Providers__Saml2__MetadataUrl: idp.metadataUrl,
        ...env,
      });

    before(async () => {
      folder = mkdtempSync(join(tmpdir(), 'gatehouse-deployed-'));
      cpSync(bundleDir, join(folder, 'dist', 'bundle'), { recursive: true });
      for (const path of ['package.json', 'config/appsettings.json', 'views', 'public']) {
        cpSync(join(projectRoot, path), join(folder, path), { recursive: true });
      }
      idp = await SamlTestIdentityProvider.start();
      appUrl = `http://127.0.0.1:${await freePort()}`;
    });
    after(async () => {
      await idp.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('migrates a PostgreSQL catalog from the migrations the bundle carries, and serves the administration API', async () => {
      const database = await startPostgres(17);
      try {
        const { child, output } = runDeployed({
          ProjectTemplate__Authentication__Providers__Saml2__Enabled: 'false',
          DATABASE_URL: database.connectionString,
          ProjectTemplate__Administration__Enabled: 'true',
        });
        running.push(child);
        await listeningUrl(output, child);
        const ready = (await (await fetch(`${appUrl}/health/ready`)).json()) as { checks: Record<string, string> };
        expect(ready.checks.connectionCatalog).to.equal('up');
        expect(output().stdout).to.include('the connection catalog migrations were applied');
        // The API's schemas compile in the bundle (ajv bundled): an anonymous call is a 401, not a 500.
        expect((await fetch(`${appUrl}/api/admin/connections`)).status).to.equal(401);
        child.kill();
        await exitOf(child);
      } finally {
        await database.close();
      }
    });

    it('refuses Saml2 at startup without schemas/saml2, naming the key and the folder', async () => {
      const { child, output } = runDeployed();
      running.push(child);
      expect(await exitOf(child)).to.equal(1);
      expect(output().stderr).to.match(
        /ProjectTemplate:Authentication:Providers:Saml2:Enabled was refused: SAML sign-in needs the SAML schemas in schemas\/saml2/,
      );
    });

    it('with schemas/saml2 deployed: signs in through SAML, and a response the schema refuses is idp.schema_invalid', async () => {
      cpSync(join(projectRoot, 'schemas', 'saml2'), join(folder, 'schemas', 'saml2'), { recursive: true });
      const { child, output } = runDeployed();
      running.push(child);
      await listeningUrl(output, child);
      const app = { url: appUrl, acsUrl: `${appUrl}/Saml2/Acs` };

      const browser = new SamlBrowser();
      const request = await browser.challenge(app, '/api/app-info');
      const signedIn = await browser.post(app.acsUrl, idp.answer(request, SP_ENTITY_ID));
      expect(signedIn.status, await signedIn.clone().text()).to.equal(302);
      expect(signedIn.headers.get('location')).to.equal('/api/app-info');
      expect((await browser.get(`${appUrl}/api/app-info`)).status).to.equal(200);

      const refusedRequest = await browser.challenge(app);
      const refused = await browser.post(
        app.acsUrl,
        idp.answer(refusedRequest, SP_ENTITY_ID, {
          sign: 'assertion',
          tamper: (xml) => xml.replace('<samlp:Status>', '<samlp:Unexpected/><samlp:Status>'),
        }),
      );
      expect(refused.status).to.equal(400);
      expect(await refused.text()).to.contain('<code>idp.schema_invalid</code>');
      expect(output().stderr).to.equal('');
    });

    it('reads a federation aggregate in its worker thread (dist/bundle/saml-metadata-reader.js) and signs in through it', async () => {
      cpSync(join(projectRoot, 'schemas', 'saml2'), join(folder, 'schemas', 'saml2'), { recursive: true });
      const member = {
        entityId: idp.entityId,
        ssoUrl: idp.ssoUrl,
        certificateBodies: [idp.credential.certificateBody],
      };
      const filler = makeSigningCredential({ commonName: 'member.example.org' }).certificateBody;
      idp.metadataOverride = aggregateXml({ members: [member], count: 200, fillerCertificate: filler });
      expect(Buffer.byteLength(idp.metadataOverride)).to.be.above(OFF_THREAD_ABOVE_BYTES);
      try {
        const { child, output } = runDeployed({
          ProjectTemplate__Authentication__Providers__Saml2__IdpEntityId: idp.entityId,
          ProjectTemplate__Authentication__Providers__Saml2__MetadataMaxBytes: String(4 * 1024 * 1024),
        });
        running.push(child);
        await listeningUrl(output, child);
        const app = { url: appUrl, acsUrl: `${appUrl}/Saml2/Acs` };
        const browser = new SamlBrowser();
        const request = await browser.challenge(app);
        const signedIn = await browser.post(app.acsUrl, idp.answer(request, SP_ENTITY_ID));
        expect(signedIn.status, await signedIn.clone().text()).to.equal(302);
        expect(output().stderr).to.equal('');
      } finally {
        idp.metadataOverride = undefined;
      }
    });
  });
});
