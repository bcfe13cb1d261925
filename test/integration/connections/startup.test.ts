import { expect } from 'chai';
import { StartupError } from '../../../src/bootstrap/startup-error.js';
import {
  CONNECTION_SP_ENTITY_ID,
  connectionEnv,
  EMAIL_ATTRIBUTE,
  oidcConnection,
  samlChallenge,
  samlConnection,
  startWithConnections,
} from '../../support/connection-app.js';
import { ConnectionFolder, readiness } from '../../support/connection-folder.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const SECRET = 'SENTINEL-startup-connection-secret-2e5f';
const configured = (name: string) => `ProjectTemplate:Authentication:Connections:${name}`;

/** The problems a start with these settings is refused for (error keys), or a failure when it starts. */
async function refusedStart(env: Record<string, string>): Promise<{ keys: string[]; message: string }> {
  try {
    const app = await startGatehouse({ ProjectTemplate__Authentication__HttpTimeoutSeconds: '2', ...env });
    await app.close();
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    return {
      keys: error.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.key),
      message: error.message,
    };
  }
  throw new Error('it started');
}

describe('connections at start', function () {
  this.timeout(20_000);
  const oidc = (organization: string, domains: string[], extra: Record<string, unknown> = {}) =>
    oidcConnection(
      organization,
      domains,
      `https://login.${organization}.example`,
      { clientId: 'c', clientSecret: SECRET },
      extra,
    );

  describe('a configured connection that breaks a rule stops the start, naming the key and never a value', () => {
    const cases: ReadonlyArray<[label: string, env: Record<string, string>, keys: string[]]> = [
      [
        'a consumer domain',
        connectionEnv('Acme', oidc('acme', ['acme.com', 'gmail.com'])),
        [`${configured('Acme')}:Domains:1`],
      ],
      ['no Domains', connectionEnv('Acme', oidc('acme', [])), [`${configured('Acme')}:Domains`]],
      ['no Organization', connectionEnv('Acme', oidc('', ['acme.com'])), [`${configured('Acme')}:Organization`]],
      [
        'a derived path set',
        connectionEnv('Acme', oidc('acme', ['acme.com'], { CallbackPath: '/x' })),
        [`${configured('Acme')}:CallbackPath`],
      ],
      ['a built-in provider’s name', connectionEnv('Saml2', oidc('acme', ['acme.com'])), [configured('Saml2')]],
      [
        'a domain held by two connections',
        {
          ...connectionEnv('Acme', oidc('acme', ['acme.com'])),
          ...connectionEnv('Initech', oidc('initech', ['ACME.com'])),
        },
        [`${configured('Initech')}:Domains:0`],
      ],
      [
        'an identity provider held by two connections',
        {
          ...connectionEnv('Acme', oidc('acme', ['acme.com'])),
          ...connectionEnv('Initech', oidc('initech', ['initech.com'], { Authority: 'https://login.acme.example/' })),
        },
        [`${configured('Initech')}:Authority`],
      ],
    ];
    for (const [label, env, keys] of cases) {
      it(label, async () => {
        const refused = await refusedStart(env);
        expect(refused.keys).to.deep.equal(keys);
        expect(refused.message).not.to.contain(SECRET);
      });
    }

    it('a folder that is not there', async () => {
      const refused = await refusedStart({
        ProjectTemplate__Authentication__ConnectionsDirectory: '/nonexistent/connections',
      });
      expect(refused.keys).to.deep.equal(['ProjectTemplate:Authentication:ConnectionsDirectory']);
    });
  });

  describe('a folder with a file that breaks a rule', () => {
    let app: RunningGatehouse;
    let folder: ConnectionFolder;
    let acmeIdp: SamlTestIdentityProvider;
    let unreachable: string;

    before(async () => {
      folder = await ConnectionFolder.create();
      acmeIdp = await SamlTestIdentityProvider.start();
      // A port nobody listens on: that organization's provider is down.
      unreachable = `http://127.0.0.1:${await freePort()}`;
      await folder.write('acme', samlConnection('acme', ['example.com'], acmeIdp));
      await folder.write(
        'globex',
        oidcConnection('globex', ['globex.test'], unreachable, { clientId: 'c', clientSecret: SECRET }),
      );
      await folder.write('initech', oidc('initech', ['initech.com', 'outlook.com']));
      await folder.writeText('broken.json', '{ "Protocol": ');
      const port = await freePort();
      app = await startWithConnections(
        port,
        {},
        { ProjectTemplate__Authentication__ConnectionsDirectory: folder.path },
      );
    });
    after(async () => {
      await app?.close();
      await Promise.all([acmeIdp?.close(), folder?.dispose()]);
    });

    it('starts, logging the file and the key of each refusal, with the others in force', async () => {
      const logs = app.logs.join('\n');
      expect(logs).to.contain(`${folder.fileOf('initech')}:Domains:1`);
      expect(logs).to.contain(`${folder.fileOf('broken')} is not valid JSON`);
      expect(logs).not.to.contain(SECRET);
      expect(await readiness(app.url)).to.deep.equal({
        status: 200,
        connections: { acme: 'idle', globex: 'idle', initech: 'refused', broken: 'refused' },
      });
    });

    it('reports a connection up once used, and down when its provider does not answer, staying ready', async () => {
      const browser = new TestBrowser();
      const request = await samlChallenge(browser, app.url, 'acme');
      const form = acmeIdp.answer(request, CONNECTION_SP_ENTITY_ID, {
        assertion: { nameId: 'ada@example.com', attributes: { [EMAIL_ATTRIBUTE]: ['ada@example.com'] } },
      });
      expect((await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url)).status).to.equal(
        302,
      );
      const down = await new TestBrowser().get(`${app.url}/External/Challenge?provider=globex`, {
        accept: 'application/json',
      });
      expect(down.status).to.equal(503);
      const { status, connections } = await readiness(app.url);
      expect(status).to.equal(200);
      expect(connections).to.deep.include({ acme: 'up', globex: 'down' });
    });
  });
});
