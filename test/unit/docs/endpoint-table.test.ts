import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { routeTemplate } from '../../../src/adapters/koa/endpoint.js';
import { createGatehouse } from '../../../src/bootstrap/gatehouse.js';
import { readDoc, withoutCodeBlocks } from './markdown.js';

const METHODS = /^(?:GET|POST|PUT|PATCH|DELETE)(?:[,;] (?:GET|POST|PUT|PATCH|DELETE))*$/;

/** The rows of docs/http-surface.md's endpoint table that are endpoints: their methods, and the paths their path cell names. */
function documentedRows(): Array<{ methods: string[]; paths: string[] }> {
  const page = withoutCodeBlocks(readDoc('docs/http-surface.md'));
  const table = page.slice(page.indexOf('## Endpoints'), page.indexOf('## Errors and problem codes'));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .map((line) => line.slice(1, -1).split('|'))
    .filter(([methods = '']) => METHODS.test(methods.trim()))
    .map(([methods = '', paths = '']) => ({
      methods: methods.trim().split(/[,;] /),
      paths: [...paths.matchAll(/`(\/[^`]*)`/g)].map((match) => match[1] ?? ''),
    }));
}

/**
 * docs/http-surface.md's endpoint table, held to the endpoints a Gatehouse mounts with every
 * optional part on (connections in a catalog, the administration API and its setup portal,
 * directory sync): composed, not started (no database is reached). Each endpoint is on a
 * row naming its method and its whole path (as `npm run routes` writes it, `{param}`), and
 * each path a row names is mounted, so a new route, a setup portal step say, cannot go
 * undocumented, nor a removed one stay.
 */
describe("docs/http-surface.md: the endpoint table is the app's", function () {
  this.timeout(30_000);
  let mounted: Array<{ method: string; path: string }>;
  before(async () => {
    const gatehouse = await createGatehouse({
      env: {
        // Gatehouse's built-in posture, whatever this project's configuration chose (a project
        // generated with `--authProvider none` runs this test too).
        ...COOKIE_POSTURE,
        NODE_ENV: 'test',
        ProjectTemplate__Logging__Level: 'silent',
        // Composed only: nothing connects to it.
        DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none',
        ProjectTemplate__Administration__Enabled: 'true',
        ProjectTemplate__Administration__ApiKeys__0: newApiKey(randomBytes).hash,
        ProjectTemplate__Administration__EncryptionKeys__0: randomBytes(32).toString('base64'),
        ProjectTemplate__Directory__Enabled: 'true',
      },
    });
    mounted = gatehouse.endpoints.map((endpoint) => ({ method: endpoint.method, path: routeTemplate(endpoint.path) }));
    await gatehouse.shutdown({ drain: false });
  });

  it('mounts the setup portal, the administration API and directory sync here', () => {
    const paths = mounted.map(({ path }) => path);
    expect(paths).to.include.members([
      '/setup/link/{token}',
      '/setup/portal/activate',
      '/setup/portal/directory/tokens',
      '/api/admin/organizations/{organization}/setup-links/{id}',
      '/scim/v2/{organization}/Users/{id}',
    ]);
  });

  it('lists every endpoint with its method and its whole path', () => {
    const rows = documentedRows();
    const missing = mounted
      .filter(({ method, path }) => !rows.some((row) => row.methods.includes(method) && row.paths.includes(path)))
      .map(({ method, path }) => `${method} ${path}`);
    expect(missing).to.deep.equal([]);
  });

  it('lists no path the app does not mount', () => {
    const paths = new Set(mounted.map(({ path }) => path));
    const stale = documentedRows()
      .flatMap((row) => row.paths)
      .filter((path) => !paths.has(path));
    expect(stale).to.deep.equal([]);
  });
});
