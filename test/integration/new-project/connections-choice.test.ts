/**
 * `--authProvider connections`: a project whose connections come from its `connections/`
 * folder, which holds an example that is not loaded. As generated it starts with the login
 * page's e-mail form and no connection; the example copied as it is to a `.json` file is
 * refused, naming its placeholders; filled in, it is a connection the project accepts.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGatehouse } from '../../../src/bootstrap/gatehouse.js';
import { generate, removeFolder, temporaryFolder } from '../../new-project/generated-project.js';

const EXAMPLE = 'connections/example.json.sample';

describe('new project --authProvider connections', function () {
  this.timeout(20_000);
  let folder: string;
  let dir: string;

  before(() => {
    folder = temporaryFolder('connections');
    dir = join(folder, 'saas-app');
    generate(dir, { authProvider: 'connections' });
  });
  after(() => removeFolder(folder));

  /** The generated project composed from its own folder and configuration (as `npm start` would), its log lines and login page. */
  async function startProject(): Promise<{ logs: string[]; loginPage: string }> {
    const logs: string[] = [];
    const gatehouse = await createGatehouse({
      rootDir: dir,
      env: { NODE_ENV: 'development', ProjectTemplate__Hosting__ShutdownDrainSeconds: '0' },
      logDestination: { write: (line: string) => void logs.push(line) },
    });
    const server = await gatehouse.listen(0, '127.0.0.1');
    const address = server.address();
    try {
      if (typeof address !== 'object' || address === null) throw new Error('not listening');
      const loginPage = await (await fetch(`http://127.0.0.1:${address.port}/Account/Login`)).text();
      return { logs, loginPage };
    } finally {
      await gatehouse.shutdown();
    }
  }

  it('configures ConnectionsDirectory and ships one example connection, not loaded', () => {
    const settings = JSON.parse(readFileSync(join(dir, 'config/appsettings.json'), 'utf8')).ProjectTemplate;
    expect(settings.Authentication.ConnectionsDirectory).to.equal('connections');
    expect(settings.Authentication.DefaultChallengeScheme).to.equal('Cookies');
    expect(readdirSync(join(dir, 'connections'))).to.deep.equal(['example.json.sample']);
  });

  it('starts as generated: the e-mail form on the login page, no connection, nothing refused', async () => {
    const { logs, loginPage } = await startProject();
    expect(loginPage).to.contain('Sign in with your work e-mail');
    // One line sums the folder up: nothing in it yet, nothing refused.
    expect(
      logs.filter((line) => /connection/i.test(line) && !line.includes('"connections":0,"fromFolder":0,"refused":0')),
    ).to.deep.equal([]);
    expect(logs.some((line) => line.includes('connections read from the folder'))).to.be.true;
  });

  it('refuses the example copied as it is, naming each placeholder, and still starts', async () => {
    writeFileSync(join(dir, 'connections/acme.json'), readFileSync(join(dir, EXAMPLE)));
    const { logs } = await startProject();
    const file = join(dir, 'connections', 'acme.json');
    const refused = logs.filter((line) => line.includes('"level":50')).join('\n');
    for (const key of ['Domains:0', 'EntityId', 'MetadataUrl']) expect(refused, key).to.contain(`${file}:${key}`);
    expect(refused).to.contain('a connection declaration was refused');
  });

  it('accepts the example once its placeholders are filled in', async () => {
    const example: Record<string, unknown> = JSON.parse(readFileSync(join(dir, EXAMPLE), 'utf8'));
    const filledIn = {
      ...example,
      Domains: ['acme.test'],
      EntityId: 'http://127.0.0.1:3000/connections/acme/saml2/acs',
      MetadataUrl: 'https://idp.acme.test/metadata',
    };
    expect(Object.values(filledIn).flat().join('\n')).not.to.contain('<');
    writeFileSync(join(dir, 'connections/acme.json'), JSON.stringify(filledIn));
    const { logs } = await startProject();
    expect(logs.filter((line) => line.includes('"level":50'))).to.deep.equal([]);
    // At start the folder is summed up in one line: one connection, read from the folder, none refused.
    expect(
      logs.some(
        (line) =>
          line.includes('"connections":1,"fromFolder":1,"refused":0') &&
          line.includes('connections read from the folder'),
      ),
    ).to.be.true;
  });

  it('explains in its README how to add a customer', () => {
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).to.contain('**Connections are on** (`--authProvider connections`)');
    expect(readme).to.contain('### Adding a customer');
    expect(readme).to.contain('Copy `connections/example.json.sample` to `connections/<name>.json`');
    expect(readme).to.contain('no connection until one is added');
  });
});
