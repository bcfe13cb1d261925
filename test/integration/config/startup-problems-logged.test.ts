/**
 * A configuration error is logged as a line, for a log collector, unless the caller shows
 * the StartupError's problems itself (the entry point at a terminal prints them as text):
 * a person then reads each error once. Warnings are logged either way.
 */
import { expect } from 'chai';
import { createGatehouse } from '../../../src/bootstrap/gatehouse.js';
import { StartupError } from '../../../src/bootstrap/startup-error.js';

const MISSING = 'ProjectTemplate:Authentication:Providers:Social3:ClientId';
const WARNED = 'ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault';

async function failedStart(logStartupErrors?: boolean): Promise<{ lines: string[]; error: unknown }> {
  const lines: string[] = [];
  const error = await createGatehouse({
    env: {
      NODE_ENV: 'test',
      ProjectTemplate__Authentication__Enabled: 'true',
      ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault: 'false',
      ProjectTemplate__Authentication__Providers__Social3__Enabled: 'true',
      ProjectTemplate__Authentication__Providers__Social3__ClientId: '',
      ProjectTemplate__Authentication__Providers__Social3__ClientSecret: '',
    },
    logDestination: { write: (line: string) => void lines.push(line) },
    ...(logStartupErrors === undefined ? {} : { logStartupErrors }),
  }).then(
    () => expect.fail('started without the provider keys'),
    (thrown: unknown) => thrown,
  );
  return { lines, error };
}

describe('startup problems in the log', () => {
  it('logs every error and warning by default, and throws the errors', async () => {
    const { lines, error } = await failedStart();
    expect(error).to.be.instanceOf(StartupError);
    expect((error as StartupError).problems.map((problem) => problem.key)).to.include(MISSING);
    expect(lines.filter((line) => line.includes(`"key":"${MISSING}"`))).to.have.length(1);
    expect(lines.filter((line) => line.includes(`"key":"${WARNED}"`))).to.have.length(1);
  });

  it('leaves the errors to the caller with logStartupErrors false, still logging the warnings', async () => {
    const { lines, error } = await failedStart(false);
    expect((error as StartupError).problems.map((problem) => problem.key)).to.include(MISSING);
    expect(lines.filter((line) => line.includes(`"key":"${MISSING}"`))).to.deep.equal([]);
    expect(lines.filter((line) => line.includes(`"key":"${WARNED}"`))).to.have.length(1);
  });
});
