import type { SettingsProblem } from '../domain/settings/problem.js';

/** Thrown by the composition root when the configuration has errors: all of them, at once. */
export class StartupError extends Error {
  constructor(readonly problems: SettingsProblem[]) {
    super(`Gatehouse cannot start: ${problems.filter((p) => p.severity === 'error').length} configuration error(s)`);
    this.name = 'StartupError';
  }
}

export function formatProblem(problem: SettingsProblem): string {
  return `${problem.severity === 'error' ? 'error' : 'warning'}: ${problem.key} ${problem.message}`;
}
