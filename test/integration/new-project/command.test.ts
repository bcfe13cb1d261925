import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_CHOICES, keysToSupply } from '../../../scripts/new-project/auth-choices.mjs';
import {
  generatorScript,
  removeFolder,
  run,
  snapshot,
  templateRoot,
  temporaryFolder,
} from '../../new-project/generated-project.js';

const generator = (args: string[], cwd: string) => run(process.execPath, [generatorScript, ...args], cwd);

describe('new project: the command', function () {
  this.timeout(20_000);
  let folder: string;
  beforeEach(() => (folder = temporaryFolder('command')));
  afterEach(() => removeFolder(folder));

  describe('refuses, exits non-zero and writes nothing', () => {
    it('for a target directory that exists and is not empty', async () => {
      mkdirSync(join(folder, 'taken'));
      writeFileSync(join(folder, 'taken', 'notes.txt'), 'mine\n');
      const before = snapshot(folder);
      const result = await generator(['taken'], folder);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain('refused; nothing was written');
      expect(result.stderr).to.contain(`${join(folder, 'taken')} exists and is not empty (1 entries)`);
      expect(snapshot(folder)).to.deep.equal(before);
      expect(readFileSync(join(folder, 'taken', 'notes.txt'), 'utf8')).to.equal('mine\n');
    });

    it('for an unknown --authProvider, listing the valid ones', async () => {
      const before = snapshot(folder);
      // `constructor`: a name every object inherits is no choice either.
      for (const unknown of ['okta', 'constructor']) {
        const result = await generator(['my-app', '--authProvider', unknown], folder);
        expect(result.status).to.equal(1);
        expect(result.stderr).to.contain(
          `--authProvider "${unknown}" is not a choice; the choices are ${Object.keys(AUTH_CHOICES).join(', ')}`,
        );
      }
      expect(snapshot(folder)).to.deep.equal(before);
    });

    it('for a package name npm would reject, saying why, without creating the parent folders either', async () => {
      const before = snapshot(folder);
      const result = await generator(['new/parents/app', '--name', 'My App'], folder);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain(
        '--name "My App" would be refused by npm: it has capital letters; it has characters that are not URL-friendly',
      );
      expect(snapshot(folder)).to.deep.equal(before);
    });

    it('for a target inside the template', async () => {
      const nested = join(templateRoot, `nested-app-${process.pid}`);
      try {
        const result = await generator([nested], templateRoot);
        expect(result.status).to.equal(1);
        expect(result.stderr).to.contain(`${nested} is inside the template`);
        expect(existsSync(nested)).to.equal(false);
      } finally {
        removeFolder(nested); // should the check ever fail, the template stays clean
      }
    });

    it('for an unknown --database, listing the choices', async () => {
      const before = snapshot(folder);
      const result = await generator(['my-app', '--authProvider', 'connections', '--database=mysql'], folder);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain('--database "mysql" is not a choice; the choices are none, postgres');
      expect(snapshot(folder)).to.deep.equal(before);
    });

    it('for --database postgres with any --authProvider but connections, the default included', async () => {
      const before = snapshot(folder);
      for (const args of [
        ['my-app', '--database', 'postgres'],
        ['my-app', '--authProvider=oidc', '--database=postgres'],
      ]) {
        const result = await generator(args, folder);
        expect(result.status, JSON.stringify(args)).to.equal(1);
        expect(result.stderr, JSON.stringify(args)).to.match(
          /--database postgres needs --authProvider connections: .* --authProvider (cookies|oidc) has none/,
        );
      }
      expect(snapshot(folder)).to.deep.equal(before);
    });

    it('with every reason at once', async () => {
      mkdirSync(join(folder, 'taken'));
      writeFileSync(join(folder, 'taken', 'notes.txt'), 'mine\n');
      const before = snapshot(folder);
      const result = await generator(['taken', '--authProvider', 'ldap', '--name', '.app'], folder);
      expect(result.status).to.equal(1);
      expect(result.stderr.match(/^ {2}- /gm)).to.have.length(3);
      expect(snapshot(folder)).to.deep.equal(before);
    });

    it('with status 2 for a command line it does not understand', async () => {
      const before = snapshot(folder);
      for (const args of [
        [],
        ['my-app', '--auth', 'none'],
        ['a', 'b'],
        ['my-app', '--name'],
        ['my-app', '--database', 'postgres', '--database', 'postgres'],
      ]) {
        const result = await generator(args, folder);
        expect(result.status, JSON.stringify(args)).to.equal(2);
        expect(result.stderr, JSON.stringify(args)).to.contain('Run with --help for the usage.');
      }
      expect(snapshot(folder)).to.deep.equal(before);
    });
  });

  it('prints the usage for --help', async () => {
    const result = await generator(['--help'], folder);
    expect(result.status).to.equal(0);
    expect(result.stdout).to.contain('Usage: npm run new -- <target-dir>');
    expect(snapshot(folder)).to.have.length(1);
  });

  it('prints what it made and the next steps, with the keys a provider choice still needs', async () => {
    const result = await generator(['apps/Portal', '--authProvider', 'oidc'], folder);
    expect(result.status, result.stderr).to.equal(0);
    const target = join(folder, 'apps', 'Portal');
    expect(existsSync(join(target, 'package.json'))).to.equal(true);
    expect(result.stdout).to.match(new RegExp(`^Created ${target}: \\d+ files from Gatehouse `));
    expect(result.stdout).to.contain("package name   portal (from the directory's name)");
    expect(result.stdout).to.contain(`--authProvider oidc: ${AUTH_CHOICES.oidc?.summary ?? '?'}`);
    expect(result.stdout).to.contain('\n  cd apps/Portal\n  npm install\n  npm test ');
    expect(result.stdout).to.contain('\n  npm run demo ');
    const oidc = AUTH_CHOICES.oidc;
    if (!oidc) throw new Error('the oidc choice is gone');
    expect(result.stdout).to.contain('Before `npm start`, supply these keys');
    for (const key of keysToSupply(oidc)) expect(result.stdout).to.contain(key.variable);
    expect(result.stdout).to.match(/\(secret\) the client secret/);
    expect(result.stdout).to.contain('docs/providers/openid-connect.md');
  });

  it('says for the default choice that npm start needs no key, and where the keys of a provider are', async () => {
    const result = await generator(['closed'], folder);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).not.to.contain('ProjectTemplate__');
    expect(result.stdout).to.contain('`npm start` serves the application with no key at all');
    expect(result.stdout).to.contain('its login page names the keys of one').and.contain('docs/providers/');
  });

  it('prints no keys to fill for the none choice, and says the README describes the posture', async () => {
    const result = await generator(['plain', '--authProvider', 'none'], folder);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).not.to.contain('ProjectTemplate__');
    expect(result.stdout).to.contain('with authentication off (README.md says what that means)');
  });

  it('says for --database postgres that the API is on, where it writes until there is a database, and where to read on', async () => {
    const result = await generator(['saas', '--authProvider', 'connections', '--database', 'postgres'], folder);
    expect(result.status, result.stderr).to.equal(0);
    const said = result.stdout.replace(/\s+/g, ' ');
    expect(said).to.contain(
      'The administration API is on (--database postgres); it writes into connections/ until DATABASE_URL',
    );
    expect(said).to.contain('README.md, "Connections in PostgreSQL"');
    expect(said).not.to.contain('ProjectTemplate__');
  });

  it('through `npm run new`, resolves the target from where the command was typed', async () => {
    const result = await run(
      'npm',
      ['--prefix', templateRoot, 'run', 'new', '--', 'typed-here', '--authProvider', 'none'],
      folder,
    );
    expect(result.status, result.stderr).to.equal(0);
    expect(existsSync(join(folder, 'typed-here', 'package.json'))).to.equal(true);
    expect(existsSync(join(templateRoot, 'typed-here'))).to.equal(false);
  });
});
