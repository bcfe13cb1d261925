import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { applicationIdentity } from '../../../src/bootstrap/application-identity.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as prettier from 'prettier';
import { AUTH_CHOICES, keysToSupply, PROVIDER_KEYS } from '../../../scripts/new-project/auth-choices.mjs';
import { connectionFiles } from '../../../scripts/new-project/connections-choice.mjs';
import { planProject } from '../../../scripts/new-project/plan-project.mjs';
import { writeProject } from '../../../scripts/new-project/write-project.mjs';
import { listTemplateFiles } from '../../../scripts/new-project/template-files.mjs';
import {
  GENERATOR_PACKAGE_FIELDS,
  GENERATOR_SCRIPTS,
  isLeftOut,
  REWRITTEN,
} from '../../../scripts/new-project/template-manifest.mjs';
import {
  generate,
  removeFolder,
  snapshot,
  templateRoot,
  temporaryFolder,
} from '../../new-project/generated-project.js';

const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');
const json = (root: string, path: string) => JSON.parse(read(root, path));

/** Every file under `dir`, "/"-separated, sorted. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
    )
    .sort();
}

/** The repository's own files: tracked, or new and not ignored (a change not yet committed). */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: templateRoot,
    encoding: 'utf8',
  });
  return [...new Set(listed.split('\0').filter((path) => path !== '' && existsSync(join(templateRoot, path))))].sort();
}

const normalized = (text: string) => text.replace(/\s+/g, ' ');

describe('new project: generating every --authProvider choice', function () {
  this.timeout(20_000);
  let folder: string;
  const projects = new Map<string, string>();

  before(() => {
    folder = temporaryFolder('generate');
    for (const choice of Object.keys(AUTH_CHOICES)) {
      const target = join(folder, `${choice}-app`);
      generate(target, { authProvider: choice });
      projects.set(choice, target);
    }
  });
  after(() => removeFolder(folder));

  it("copies every file of the repository but those the manifest leaves out, and nothing else but the choice's own", () => {
    const expected = repositoryFiles().filter((path) => !isLeftOut(path));
    expect(expected).to.include.members(['package.json', 'src/bootstrap/main.ts', '.gitignore', '.ci/run']);
    for (const [name, dir] of projects) {
      const added = connectionFiles(AUTH_CHOICES[name] ?? expect.fail(name)).map((file) => file.path);
      expect(filesUnder(dir)).to.deep.equal([...expected, ...added].sort());
    }
  });

  it('copies the files it does not rewrite byte for byte, executable bits included', () => {
    const dir = projects.get('none') ?? '';
    for (const path of filesUnder(dir).filter((path) => !(path in REWRITTEN))) {
      expect(readFileSync(join(dir, path)).equals(readFileSync(join(templateRoot, path))), path).to.equal(true);
      expect(statSync(join(dir, path)).mode & 0o111, path).to.equal(statSync(join(templateRoot, path)).mode & 0o111);
    }
    expect(statSync(join(dir, '.ci/run')).mode & 0o100).to.equal(0o100);
  });

  it('names the package after its directory, starts it at 0.1.0, and drops what serves only the generator', () => {
    const template = json(templateRoot, 'package.json');
    for (const [choice, dir] of projects) {
      const manifest = json(dir, 'package.json');
      expect(manifest).to.include({ name: `${choice}-app`, version: '0.1.0', private: true });
      expect(manifest.description).to.equal(
        `Generated from Gatehouse ${template.version} with --authProvider ${choice}.`,
      );
      for (const field of GENERATOR_PACKAGE_FIELDS) expect(manifest, field).not.to.have.property(field);
      // Gatehouse's own display name stays behind: the project's pages and build show its package name.
      expect(template.displayName).to.equal('Gatehouse');
      expect(manifest).not.to.have.property('displayName');
      expect(applicationIdentity(dir).displayName).to.equal(`${choice}-app`);
      const scripts = { ...template.scripts };
      for (const script of GENERATOR_SCRIPTS) delete scripts[script];
      expect(manifest.scripts).to.deep.equal(scripts);
      expect(manifest.scripts).to.include.keys('test', 'start', 'demo');
      expect(manifest.dependencies).to.deep.equal(template.dependencies);
      expect(manifest.devDependencies).to.deep.equal(template.devDependencies);
      // What the template is tested on, and which install scripts npm may run (npm 12 blocks the rest).
      expect(manifest.engines).to.deep.equal(template.engines);
      expect(manifest.allowScripts).to.deep.equal(template.allowScripts);

      const lockfile = json(dir, 'package-lock.json');
      expect(lockfile).to.include({ name: `${choice}-app`, version: '0.1.0' });
      expect(lockfile.packages['']).to.include({ name: `${choice}-app`, version: '0.1.0' });
      expect(lockfile.packages['']).not.to.have.property('bin');
      const templateLock = json(templateRoot, 'package-lock.json');
      expect(Object.keys(lockfile.packages)).to.deep.equal(Object.keys(templateLock.packages));
      expect(lockfile.packages['node_modules/koa']).to.deep.equal(templateLock.packages['node_modules/koa']);
    }
  });

  it("writes each choice's posture into config/appsettings.json and changes nothing else in it", () => {
    const templateLines = read(templateRoot, 'config/appsettings.json').split('\n');
    for (const [name, dir] of projects) {
      const choice = AUTH_CHOICES[name];
      const settings = json(dir, 'config/appsettings.json').ProjectTemplate;
      expect(settings.Authentication.Enabled, name).to.equal(name !== 'none');
      expect(settings.Authorization.RequireAuthenticatedUserByDefault, name).to.equal(name !== 'none');
      for (const provider of PROVIDER_KEYS)
        expect(settings.Authentication.Providers[provider].Enabled, `${name}: ${provider}`).to.equal(
          provider === choice?.provider,
        );
      const expectedChallenge = { oidc: 'OpenIdConnect', saml2: 'Saml2' }[name] ?? 'Cookies';
      expect(settings.Authentication.DefaultChallengeScheme, name).to.equal(expectedChallenge);

      const lines = read(dir, 'config/appsettings.json').split('\n');
      expect(lines.length).to.equal(templateLines.length);
      const changed = lines.filter((line, index) => line !== templateLines[index]);
      for (const line of changed)
        expect(line, name).to.match(
          /^\s*"(Enabled|DefaultChallengeScheme|RequireAuthenticatedUserByDefault|ConnectionsDirectory)": /,
        );
    }
    expect(read(projects.get('cookies') ?? '', 'config/appsettings.json')).to.equal(
      read(templateRoot, 'config/appsettings.json'),
    );
  });

  it('leaves the rewritten files as Prettier formats them (the new project checks it first)', async () => {
    for (const dir of projects.values()) {
      for (const path of ['package.json', 'config/appsettings.json']) {
        const options = await prettier.resolveConfig(join(templateRoot, path));
        expect(await prettier.check(read(dir, path), { ...options, filepath: join(dir, path) }), path).to.equal(true);
      }
    }
  });

  it("titles the README after the project, explains the choice's posture and drops the generator's parts", () => {
    for (const [name, dir] of projects) {
      const readme = read(dir, 'README.md');
      expect(readme.startsWith(`# ${name}-app\n`), name).to.equal(true);
      expect(readme).to.contain(`with \`--authProvider ${name}\``);
      expect(readme).to.contain('## Authentication posture of this project');
      expect(readme).to.contain('## Quick start').and.contain('## Production checklist');
      for (const gone of ['Start a new application', 'npm run new', 'test:new-project', 'new-project.mjs'])
        expect(readme, `${name}: ${gone}`).not.to.contain(gone);
      expect(readme).not.to.contain('With no configuration at all it starts');
    }
    const none = normalized(read(projects.get('none') ?? '', 'README.md'));
    expect(none).to.contain(
      'Unannotated endpoints are public until this application adds its own authentication and authorization posture.',
    );
    expect(none).to.contain('no session cookie is issued');
    expect(none).to.contain('answer 403 `auth.disabled`');
  });

  it('lists in the README the keys a provider choice leaves to supply, and where secrets go', () => {
    for (const [name, choice] of Object.entries(AUTH_CHOICES)) {
      const readme = read(projects.get(name) ?? '', 'README.md');
      const keys = keysToSupply(choice);
      expect(readme.includes('### Keys still to supply'), name).to.equal(keys.length > 0);
      for (const key of keys) {
        const row = readme.split('\n').find((line) => line.startsWith(`| \`${key.key}\` |`)) ?? '';
        expect(row, `${name}: ${key.key}`).to.contain(`\`${key.variable}\``);
        if (key.secret)
          expect(row).to.contain('`.env`').and.contain('secret store').and.contain('never the repository');
      }
      if (choice.docsPage) expect(readme, name).to.contain(`every key of it: \`${choice.docsPage}\``);
      if (choice.vendor) expect(readme, name).to.contain(`(${choice.vendor}) sign-in is on**`);
      if (keys.length > 0) expect(normalized(readme), name).to.contain('`npm test` passes without them');
    }
  });

  it('generates into an existing empty directory', () => {
    const target = join(folder, 'empty');
    mkdirSync(target);
    generate(target, { authProvider: 'none', name: '@acme/portal' });
    expect(json(target, 'package.json').name).to.equal('@acme/portal');
    expect(readdirSync(target)).to.include('src');
  });
});

describe('new project: a clean project from a template cluttered with local state', function () {
  this.timeout(20_000);
  const SENTINEL = 'SENTINEL-local-secret-4b1d';
  let folder: string;
  let template: string;
  let project: string;

  before(() => {
    folder = temporaryFolder('clutter');
    template = join(folder, 'template');
    for (const file of listTemplateFiles(templateRoot)) {
      mkdirSync(dirname(join(template, file.path)), { recursive: true });
      writeFileSync(join(template, file.path), readFileSync(file.source));
    }
    const clutter = [
      '.git/config',
      'node_modules/koa/index.js',
      'dist/bundle/main.js',
      'coverage/lcov.info',
      'test-artifacts/e2e/login.png',
      'bench-results/bench.json',
      'profile.cpuprofile',
      'npm-debug.log',
      '.env',
      '.env.local',
      'config/appsettings.production.json',
      '.npmrc',
      'certs/server.key',
      'certs/server.pem',
      'gatehouse-0.1.0.tgz',
      'src/.main.ts.swp',
    ];
    for (const path of clutter) {
      mkdirSync(dirname(join(template, path)), { recursive: true });
      writeFileSync(join(template, path), `${SENTINEL}\n`);
    }
    project = join(folder, 'clean-app');
    generate(project, { template, authProvider: 'cookies' });
  });
  after(() => removeFolder(folder));

  it('leaves out version control, packages, build and test output, logs, local settings and keys', () => {
    const files = filesUnder(project);
    expect(files.filter((path) => isLeftOut(path))).to.deep.equal([]);
    for (const path of files) expect(read(project, path), path).not.to.contain(SENTINEL);
    expect(files).to.include('.env.example');
  });
});

describe('new project: a failure half-way', () => {
  let folder: string;
  before(() => (folder = temporaryFolder('failure')));
  after(() => removeFolder(folder));

  it('leaves nothing behind, not even the parent folders it created', () => {
    const target = join(folder, 'new', 'parents', 'app');
    const outcome = planProject({ templateRoot, target });
    if (!outcome.plan) throw new Error(String(outcome.problems));
    // A file where a folder has to go: writing stops part of the way through.
    const broken = {
      ...outcome.plan,
      files: [...outcome.plan.files, { path: 'package.json/x', content: '', mode: 0o644 }],
    };
    const before = snapshot(folder, { folderTimes: false });
    expect(() => writeProject(broken)).to.throw();
    expect(snapshot(folder, { folderTimes: false })).to.deep.equal(before);
    expect(readdirSync(folder)).to.deep.equal([]);
  });
});
