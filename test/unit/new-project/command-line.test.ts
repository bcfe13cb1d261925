import { expect } from 'chai';
import { AUTH_CHOICES } from '../../../scripts/new-project/auth-choices.mjs';
import { parseCommandLine, usage } from '../../../scripts/new-project/command-line.mjs';
import { DATABASE_CHOICES } from '../../../scripts/new-project/database-choice.mjs';

describe('new project: the command line', () => {
  const cases: Array<[string[], ReturnType<typeof parseCommandLine>]> = [
    [['my-app'], { kind: 'run', target: 'my-app' }],
    [
      ['my-app', '--name', 'x', '--authProvider', 'none'],
      { kind: 'run', target: 'my-app', name: 'x', authProvider: 'none' },
    ],
    [
      ['--authProvider=oidc', '../my-app', '--name=@acme/portal'],
      { kind: 'run', target: '../my-app', name: '@acme/portal', authProvider: 'oidc' },
    ],
    [['--', '--odd-dir'], { kind: 'run', target: '--odd-dir' }],
    [['my-app', '--help'], { kind: 'help' }],
    [['-h'], { kind: 'help' }],
    [[], { kind: 'error', message: 'the target directory is missing' }],
    [['a', 'b'], { kind: 'error', message: 'one target directory, not 2 (a, b)' }],
    [['a', '--auth', 'none'], { kind: 'error', message: 'unknown option --auth' }],
    [['a', '--name'], { kind: 'error', message: '--name needs a value' }],
    [['a', '--name', '--authProvider', 'none'], { kind: 'error', message: '--name needs a value' }],
    [['a', '--name', 'x', '--name=y'], { kind: 'error', message: '--name is given twice' }],
    [
      ['a', '--authProvider', 'connections', '--database', 'postgres'],
      { kind: 'run', target: 'a', authProvider: 'connections', database: 'postgres' },
    ],
    [['--database=postgres', 'a'], { kind: 'run', target: 'a', database: 'postgres' }],
    // The value is judged with the others, all at once (plan-project.mjs), not here.
    [['a', '--database', 'mysql'], { kind: 'run', target: 'a', database: 'mysql' }],
    [['a', '--database', 'postgres', '--database=none'], { kind: 'error', message: '--database is given twice' }],
    [['a', '--database'], { kind: 'error', message: '--database needs a value' }],
    [['a', '--database', '--name', 'x'], { kind: 'error', message: '--database needs a value' }],
  ];
  for (const [args, expected] of cases) {
    it(`reads ${JSON.stringify(args)}`, () => {
      expect(parseCommandLine(args)).to.deep.equal(expected);
    });
  }

  it('prints the usage with both ways to run it and every choice with what it sets', () => {
    const text = usage();
    expect(text).to.contain('npm run new -- <target-dir> [--name <package-name>] [--authProvider <choice>]');
    expect(text).to.contain('npm exec --package=<gatehouse tarball> -- create-gatehouse <target-dir>');
    for (const [name, choice] of Object.entries(AUTH_CHOICES))
      expect(text).to.contain(`${name}`).and.contain(choice.summary);
  });

  it('prints --database with its default and each choice with what it does', () => {
    const text = usage();
    expect(text).to.contain('[--authProvider <choice>] [--database <choice>]');
    expect(text).to.contain('--database <choice>').and.contain('(default: none)');
    const lines = text.split('\n').map((line) => line.trim());
    for (const [name, choice] of Object.entries(DATABASE_CHOICES))
      expect(
        lines.some((line) => line.startsWith(`${name} `) && line.endsWith(choice.summary)),
        name,
      ).to.equal(true);
  });
});
