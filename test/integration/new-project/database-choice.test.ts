/**
 * `--authProvider connections --database postgres` against the same project generated
 * without `--database`: it differs in four files only, each by the part it adds (the two
 * settings in config/appsettings.json, the README's "Connections in PostgreSQL", the
 * commented lines of .env.example, the options in the package's description), and
 * `--database none` is the project without the option, byte for byte. As generated, with no
 * database, it starts with the administration API on over its connections folder, and the
 * README's key commands give keys the API takes; its suites that run with Gatehouse's
 * built-in posture start it too; with `DATABASE_URL`, on a real PostgreSQL, it migrates at start.
 */
import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as prettier from 'prettier';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { listTemplateFiles } from '../../../scripts/new-project/template-files.mjs';
import pg from 'pg';
import { createGatehouse } from '../../../src/bootstrap/gatehouse.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import {
  generate,
  linkTemplateModules,
  removeFolder,
  run,
  templateRoot,
  temporaryFolder,
} from '../../new-project/generated-project.js';

const read = (root: string, path: string) => readFileSync(join(root, path));
const text = (root: string, path: string) => read(root, path).toString('utf8');

/** Every file under `dir`, "/"-separated, sorted (node_modules, a link, not entered). */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.name !== 'node_modules')
    .flatMap((entry) =>
      entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
    )
    .sort();
}

describe('new project --authProvider connections --database postgres', function () {
  this.timeout(60_000);
  let folder: string;
  /** The template's files as they were once: the three projects compare what the options did, nothing edited meanwhile. */
  let template: string;
  /** The same package name in each, so that only the options make a difference. */
  let plain: string;
  let none: string;
  let postgres: string;

  before(() => {
    folder = temporaryFolder('database');
    template = join(folder, 'template');
    for (const file of listTemplateFiles(templateRoot)) {
      mkdirSync(dirname(join(template, file.path)), { recursive: true });
      writeFileSync(join(template, file.path), readFileSync(file.source));
    }
    plain = join(folder, 'plain', 'saas-app');
    none = join(folder, 'none', 'saas-app');
    postgres = join(folder, 'postgres', 'saas-app');
    generate(plain, { template, authProvider: 'connections' });
    generate(none, { template, authProvider: 'connections', database: 'none' });
    generate(postgres, { template, authProvider: 'connections', database: 'postgres' });
  });
  after(() => removeFolder(folder));

  it('with --database none is the project without --database, byte for byte', () => {
    expect(filesUnder(none)).to.deep.equal(filesUnder(plain));
    const differing = filesUnder(plain).filter((path) => !read(plain, path).equals(read(none, path)));
    expect(differing).to.deep.equal([]);
  });

  it('differs from the project without --database in four files only, and keeps the connections folder', () => {
    expect(filesUnder(postgres)).to.deep.equal(filesUnder(plain));
    const differing = filesUnder(plain).filter((path) => !read(plain, path).equals(read(postgres, path)));
    expect(differing).to.deep.equal(['.env.example', 'README.md', 'config/appsettings.json', 'package.json']);
    expect(readdirSync(join(postgres, 'connections'))).to.deep.equal(['example.json.sample']);
  });

  it('turns the administration API and the migrations on in config/appsettings.json, every other character kept', () => {
    const before = text(plain, 'config/appsettings.json');
    const closing = '\n    }\n  }\n}\n';
    expect(before.endsWith(closing)).to.equal(true);
    expect(text(postgres, 'config/appsettings.json')).to.equal(
      `${before.slice(0, -closing.length)}\n    },\n    "Database": { "Migrate": true },\n    "Administration": { "Enabled": true }\n  }\n}\n`,
    );
    const settings = JSON.parse(text(postgres, 'config/appsettings.json')).ProjectTemplate;
    // The URL holds a password: it stays out of a committed file.
    expect(settings.Database).to.deep.equal({ Migrate: true });
    expect(settings.Administration).to.deep.equal({ Enabled: true });
  });

  it('names the options in the package description, and nothing else of package.json changes', () => {
    const description = (dir: string) => JSON.parse(text(dir, 'package.json')).description;
    expect(description(postgres)).to.equal(`${description(plain).slice(0, -1)} --database postgres.`);
    expect(text(postgres, 'package.json')).to.equal(
      text(plain, 'package.json').replace(description(plain), description(postgres)),
    );
  });

  it('adds commented lines for the URL and the keys to .env.example', () => {
    const added = text(postgres, '.env.example').slice(text(template, '.env.example').length);
    expect(text(postgres, '.env.example').startsWith(text(template, '.env.example'))).to.equal(true);
    expect(text(plain, '.env.example')).to.equal(text(template, '.env.example'));
    expect(added).to.contain('\n# DATABASE_URL=postgresql://gatehouse@localhost/gatehouse\n');
    expect(added).to.contain('\n# ProjectTemplate__Administration__EncryptionKeys__0=');
    expect(added).to.contain('\n# ProjectTemplate__Administration__ApiKeys__0=');
    for (const line of added.trimEnd().split('\n')) expect(line).to.match(/^# /);
  });

  it('adds "Connections in PostgreSQL" to the README, and changes nothing else in it but its first line', () => {
    const readme = text(postgres, 'README.md');
    const start = readme.indexOf('\n\n### Connections in PostgreSQL\n');
    const end = readme.indexOf('\n\n## Quick start\n');
    expect(start).to.be.greaterThan(readme.indexOf('### Adding a customer'));
    expect(end).to.be.greaterThan(start);
    expect(
      (readme.slice(0, start) + readme.slice(end)).replace(
        '`--authProvider connections --database postgres`',
        '`--authProvider connections`',
      ),
    ).to.equal(text(plain, 'README.md'));

    const part = readme.slice(start, end).replace(/\s+/g, ' ');
    for (const said of [
      'Set `DATABASE_URL` (or `ProjectTemplate__Database__ConnectionString`)',
      'migrations run at start',
      'set `ProjectTemplate__Database__Migrate=false` and run `npm run db:migrate`',
      '`npm run connections:new-key`',
      '`ProjectTemplate__Administration__EncryptionKeys__0`',
      '`npm run admin:new-api-key`',
      'only the hash it prints goes into the configuration',
      'Without a database the API writes its connections as files into `connections/`, which suits one instance only',
      'the files written by hand in `connections/` keep working beside the catalog',
    ])
      expect(part).to.contain(said);
    // Each command it names is one of the project's own scripts.
    const scripts = JSON.parse(text(postgres, 'package.json')).scripts;
    const named = [...part.matchAll(/`npm run ([\w:-]+)`/g)].map((match) => match[1] ?? '');
    expect(named).to.have.members(['db:migrate', 'connections:new-key', 'admin:new-api-key']);
    for (const script of named) expect(scripts, script).to.have.property(script);
  });

  it('leaves its rewritten files as Prettier formats them (the project checks it first)', async () => {
    // README.md and .env.example are not Prettier's (.prettierignore keeps *.md; no parser for the other).
    for (const path of ['config/appsettings.json', 'package.json']) {
      const options = await prettier.resolveConfig(join(templateRoot, path));
      expect(await prettier.check(text(postgres, path), { ...options, filepath: join(postgres, path) }), path).to.equal(
        true,
      );
    }
  });

  describe('started as generated, without a database', () => {
    /** The project composed from its own folder and configuration, as `npm start` would, then `call` against it. */
    async function startProject(env: Record<string, string>, call: (url: string) => Promise<void>): Promise<string[]> {
      const logs: string[] = [];
      const gatehouse = await createGatehouse({
        rootDir: postgres,
        env: { NODE_ENV: 'development', ProjectTemplate__Hosting__ShutdownDrainSeconds: '0', ...env },
        logDestination: { write: (line: string) => void logs.push(line) },
      });
      try {
        const address = (await gatehouse.listen(0, '127.0.0.1')).address();
        if (typeof address !== 'object' || address === null) throw new Error('not listening');
        await call(`http://127.0.0.1:${address.port}`);
      } finally {
        await gatehouse.shutdown();
      }
      return logs;
    }

    it('serves the administration API over its connections folder, to the keys the README says to make', async () => {
      linkTemplateModules(postgres);
      const apiKey = await run('npm', ['run', '--silent', 'admin:new-api-key'], postgres);
      const encryptionKey = await run('npm', ['run', '--silent', 'connections:new-key'], postgres);
      expect(apiKey.status, apiKey.stderr).to.equal(0);
      expect(encryptionKey.status, encryptionKey.stderr).to.equal(0);
      const key = /^API key .*: (\S+)$/m.exec(apiKey.stdout)?.[1] ?? '';
      const hash = /^Its hash, for ProjectTemplate:Administration:ApiKeys: ([0-9a-f]{64})$/m.exec(apiKey.stdout)?.[1];
      expect(key).to.have.length.greaterThan(20);

      const logs = await startProject(
        {
          ProjectTemplate__Administration__ApiKeys__0: hash ?? '',
          ProjectTemplate__Administration__EncryptionKeys__0: encryptionKey.stdout.trim(),
        },
        async (url) => {
          const anonymous = await fetch(`${url}/api/admin/connections`);
          expect(anonymous.status).to.equal(401);
          const listed = await fetch(`${url}/api/admin/connections`, { headers: { authorization: `Bearer ${key}` } });
          expect(listed.status, await listed.clone().text()).to.equal(200);
          expect(JSON.stringify(await listed.json())).not.to.contain('example');
        },
      );
      expect(logs.filter((line) => /"level":(40|50)/.test(line))).to.deep.equal([]);
      expect(logs.join('\n')).not.to.contain(key).and.not.to.contain(encryptionKey.stdout.trim());
    });

    describe('and with DATABASE_URL, on a real PostgreSQL 17', () => {
      let database: PostgresServer;
      before(async function () {
        this.timeout(60_000);
        database = await startPostgres(17);
      });
      after(() => database?.close());

      it('migrates at start, as the README says, and serves the API over the catalog in the database, its readiness up', async () => {
        linkTemplateModules(postgres);
        const apiKey = await run('npm', ['run', '--silent', 'admin:new-api-key'], postgres);
        const key = /^API key .*: (\S+)$/m.exec(apiKey.stdout)?.[1] ?? '';
        const hash = /^Its hash, for ProjectTemplate:Administration:ApiKeys: ([0-9a-f]{64})$/m.exec(apiKey.stdout)?.[1];
        const logs = await startProject(
          { DATABASE_URL: database.connectionString, ProjectTemplate__Administration__ApiKeys__0: hash ?? '' },
          async (url) => {
            const listed = await fetch(`${url}/api/admin/connections`, { headers: { authorization: `Bearer ${key}` } });
            expect(listed.status, await listed.clone().text()).to.equal(200);
            const ready = (await (await fetch(`${url}/health/ready`)).json()) as { checks: Record<string, string> };
            expect(ready.checks.connectionCatalog).to.equal('up');
          },
        );
        const sql = new pg.Client({ connectionString: database.connectionString });
        await sql.connect();
        try {
          const { rows } = await sql.query<{ name: string }>(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_name = 'gatehouse_connections'",
          );
          expect(
            rows.map((row) => row.name),
            'the catalog table the start migrated',
          ).to.deep.equal(['gatehouse_connections']);
        } finally {
          await sql.end();
        }
        expect(logs.filter((line) => /"level":(40|50)/.test(line))).to.deep.equal([]);
        expect(logs.join('\n')).not.to.contain(key);
      });
    });

    it("starts with Gatehouse's built-in posture too, as its suites that exercise sign-in start it, the API off", async () => {
      const logs = await startProject({ ...COOKIE_POSTURE }, async (url) => {
        expect((await fetch(`${url}/api/admin/connections`)).status).to.equal(404);
      });
      expect(logs.filter((line) => line.includes('"level":50'))).to.deep.equal([]);
    });
  });
});
