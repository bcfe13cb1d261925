import { COOKIE_POSTURE } from '../../scripts/cookie-posture.js';
import { createGatehouse } from '../../src/bootstrap/gatehouse.js';
import { formatProblem, StartupError } from '../../src/bootstrap/startup-error.js';

/**
 * What starting Gatehouse with `env` gives: the startup problems, formatted as `npm start`
 * prints them (warnings included; none when it started), and every log line with the
 * error's message, for suites of startup rules that must name a key and never a value.
 * A start that succeeds is shut down at once.
 */
export async function startupOutcome(env: Record<string, string>): Promise<{ problems: string[]; logs: string }> {
  const lines: string[] = [];
  try {
    const gatehouse = await createGatehouse({
      env: {
        ...COOKIE_POSTURE,
        NODE_ENV: 'test',
        ProjectTemplate__Logging__Level: 'debug',
        ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1:3999',
        ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
        ...env,
      },
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    await gatehouse.shutdown();
    return { problems: [], logs: lines.join('\n') };
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    return { problems: error.problems.map(formatProblem), logs: lines.join('\n') + String(error.message) };
  }
}
