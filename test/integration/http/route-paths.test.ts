import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRoutedPath, routedPaths } from '../../../src/adapters/koa/routes/route-paths.js';
import { isDirectoryPath } from '../../support/directory-paths.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

describe('routed paths declared without handlers (what the startup rules check callback paths against)', () => {
  let app: RunningGatehouse;
  let folder: string;
  before(async () => {
    // With connections on (an empty folder of them), so that the e-mail form's endpoint is mounted
    // too, and the administration API over that folder, so that its endpoints are.
    folder = await mkdtemp(join(tmpdir(), 'gatehouse-connections-'));
    app = await startGatehouse({
      ProjectTemplate__Authentication__ConnectionsDirectory: folder,
      ProjectTemplate__Administration__Enabled: 'true',
    });
  });
  after(async () => {
    await app.close();
    await rm(folder, { recursive: true, force: true });
  });

  it("are exactly the paths of the endpoint table (directory sync's, which needs PostgreSQL, apart)", () => {
    const withoutDirectory = [...routedPaths].filter((path) => !isDirectoryPath(path));
    expect([...new Set(app.gatehouse.endpoints.map((endpoint) => endpoint.path))]).to.have.members(withoutDirectory);
  });

  it('match concrete paths as the router does, optional segments included', () => {
    expect(isRoutedPath('/Account/Login')).to.equal(true);
    expect(isRoutedPath('/Home/Error')).to.equal(true);
    expect(isRoutedPath('/Home/Error/500')).to.equal(true);
    expect(isRoutedPath('/')).to.equal(true);
    expect(isRoutedPath('/signin-oidc')).to.equal(false);
    expect(isRoutedPath('/Saml2/Acs')).to.equal(false);
  });

  it('stop a provider whose callback path is a routed path from starting', async () => {
    const failure = await startGatehouse({
      ProjectTemplate__Authentication__Providers__Social2__Enabled: 'true',
      ProjectTemplate__Authentication__Providers__Social2__ClientId: 'client',
      ProjectTemplate__Authentication__Providers__Social2__ClientSecret: 'SENTINEL-social2-secret-77aa',
      ProjectTemplate__Authentication__Providers__Social2__CallbackPath: '/Home/Error/500',
    }).then(
      () => expect.fail('started with a colliding callback path'),
      (error: unknown) => error as { problems?: Array<{ key: string; message: string }> },
    );
    expect(failure.problems).to.deep.equal([
      {
        key: 'ProjectTemplate:Authentication:Providers:Social2:CallbackPath',
        message: 'collides with a routed application endpoint',
        severity: 'error',
      },
    ]);
  });
});
