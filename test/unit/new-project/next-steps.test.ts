import { expect } from 'chai';
import { AUTH_CHOICES } from '../../../scripts/new-project/auth-choices.mjs';
import { nextSteps } from '../../../scripts/new-project/next-steps.mjs';

function stepsFor(choiceName: keyof typeof AUTH_CHOICES, database = 'none'): string {
  const plan = {
    target: '/tmp/saas-app',
    files: [],
    templateVersion: '0.1.0',
    name: 'saas-app',
    nameFromDirectory: true,
    choiceName,
    choice: AUTH_CHOICES[choiceName],
    database,
  };
  return nextSteps(plan as unknown as Parameters<typeof nextSteps>[0], '/tmp');
}

describe('what the generator says next', () => {
  it('for --authProvider connections: where the example connection is, where it goes, and what to fill in', () => {
    const said = stepsFor('connections');
    expect(said).to.contain('connections/example.json.sample').and.contain('connections/<name>.json');
    expect(said).to.contain('Domains').and.contain('MetadataUrl').and.contain('EntityId');
    expect(said).to.contain('Adding a customer');
    // No connection is a provider toggle: the login page's provider keys are the wrong lead here.
    expect(said).not.to.contain('until a provider is on');
  });

  it('for --database postgres: in two more lines, that the API is on, writes into the folder until a database, and where to read on', () => {
    const without = stepsFor('connections');
    const said = stepsFor('connections', 'postgres');
    expect(said.startsWith(`${without}\n`)).to.equal(true);
    const added = said.slice(without.length + 1).split('\n');
    expect(added).to.have.length(2);
    const joined = added.join(' ');
    expect(joined)
      .to.contain('The administration API is on')
      .and.contain('writes into connections/ until DATABASE_URL');
    expect(joined).to.contain('README.md, "Connections in PostgreSQL"');
    expect(without).not.to.contain('DATABASE_URL');
  });

  it('for the default choice: the login page names the keys of a provider', () => {
    expect(stepsFor('cookies')).to.contain('until a provider is on');
  });
});
