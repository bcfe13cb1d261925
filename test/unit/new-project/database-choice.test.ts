/**
 * `--database`: which values are refused and why, and the lines `--database postgres`
 * appends to `.env.example` (the appsettings and the README are checked on a generated
 * project, test/integration/new-project/database-choice.test.ts).
 */
import { expect } from 'chai';
import { AUTH_CHOICES } from '../../../scripts/new-project/auth-choices.mjs';
import {
  DATABASE_CHOICES,
  databaseProblems,
  databaseSettings,
  rewriteEnvExample,
} from '../../../scripts/new-project/database-choice.mjs';

describe('new project: the --database choice', () => {
  const accepted: Array<[string | undefined, string]> = [
    [undefined, 'cookies'],
    [undefined, 'connections'],
    ['none', 'oidc'],
    ['NONE', 'none'],
    ['postgres', 'connections'],
    ['Postgres', 'connections'],
  ];
  for (const [database, choice] of accepted) {
    it(`accepts --database ${database ?? '(not given)'} with --authProvider ${choice}`, () => {
      expect(databaseProblems(database, choice)).to.deep.equal([]);
    });
  }

  it('refuses a value that is not a choice, listing the choices', () => {
    expect(databaseProblems('mysql', 'connections')).to.deep.equal([
      '--database "mysql" is not a choice; the choices are none, postgres',
    ]);
    // Not a property every object inherits either.
    for (const odd of ['', 'constructor', 'toString', '__proto__'])
      expect(databaseProblems(odd, 'connections'), odd).to.deep.equal([
        `--database "${odd}" is not a choice; the choices are none, postgres`,
      ]);
  });

  for (const choice of Object.keys(AUTH_CHOICES).filter((name) => name !== 'connections')) {
    it(`refuses --database postgres with --authProvider ${choice}, saying it needs connections`, () => {
      expect(databaseProblems('postgres', choice)).to.deep.equal([
        `--database postgres needs --authProvider connections: the database keeps the connections the administration API writes, and --authProvider ${choice} has none`,
      ]);
    });
  }

  it('writes settings for postgres only', () => {
    expect(Object.keys(DATABASE_CHOICES)).to.deep.equal(['none', 'postgres']);
    expect(databaseSettings('none')).to.deep.equal([]);
    expect(databaseSettings('postgres')).to.deep.equal([
      { path: ['Database', 'Migrate'], value: true },
      { path: ['Administration', 'Enabled'], value: true },
    ]);
  });

  describe('the lines it adds to .env.example', () => {
    const TEMPLATE = '# Copy to .env (git-ignored).\n# PORT=3000\n';

    it("keeps the template's text as it is and adds commented lines for the URL and both keys", () => {
      const text = rewriteEnvExample(TEMPLATE);
      expect(text.startsWith(TEMPLATE)).to.equal(true);
      const added = text.slice(TEMPLATE.length).split('\n');
      expect(added.pop()).to.equal('');
      for (const line of added) expect(line).to.match(/^# /);
      expect(added).to.include('# DATABASE_URL=postgresql://gatehouse@localhost/gatehouse');
      const keys = added.filter((line) => line.startsWith('# ProjectTemplate__'));
      expect(keys.map((line) => line.slice(2, line.indexOf('=')))).to.deep.equal([
        'ProjectTemplate__Administration__EncryptionKeys__0',
        'ProjectTemplate__Administration__ApiKeys__0',
      ]);
      expect(text).to.contain('npm run connections:new-key').and.contain('npm run admin:new-api-key');
      expect(text).to.contain('Only the hash of an API key, never the key');
    });

    it('ends a template whose last line has no newline before adding to it', () => {
      expect(rewriteEnvExample('# PORT=3000')).to.match(/^# PORT=3000\n# The connection catalog/);
    });
  });
});
