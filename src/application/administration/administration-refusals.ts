import type { SettingsProblem } from '../../domain/settings/problem.js';
import { isCatalogUnavailable } from '../ports/connection-catalog.js';
import { AdministrationProblem, type KeyProblem } from './administration-problem.js';

/*
 * The administration API's refusals, as its use cases raise them: each a stable code, a
 * sentence for a person, and the keys at fault, never a value sent.
 */

/** The catalog out of reach is the API's 503, with nothing written: never the store's own error (it may name the host). */
export async function unavailableAs503<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isCatalogUnavailable(error)) {
      throw new AdministrationProblem(
        'unavailable',
        'catalog.unavailable',
        'The connection catalog cannot be reached now; nothing was changed. Sign-ins through the connections in force go on. Try again in a moment.',
      );
    }
    throw error;
  }
}

export function refuseFileKeys(body: Record<string, unknown>): void {
  const fileKeys = Object.keys(body).filter((key) => /File$/i.test(key));
  if (fileKeys.length === 0) return;
  throw new AdministrationProblem(
    'invalid',
    'connection.invalid',
    'A connection written through the API gives its secrets as values (stored encrypted), never as files to read.',
    fileKeys.map((key) => ({ key, message: 'names a file: give the secret itself' })),
  );
}

export function refuseProblems(problems: readonly SettingsProblem[], code: string, detail: string): void {
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) throw new AdministrationProblem('invalid', code, detail, keyProblems(errors));
}

/** Problems named by the connection's key alone (`ClientId`, `Domains:0`), as a file's are after its path. */
export function keyProblems(problems: readonly SettingsProblem[]): KeyProblem[] {
  return problems.map((problem) => ({ key: shortKey(problem.key) ?? problem.key, message: problem.message }));
}

/** `database:acme:Domains:0` / `/path/Acme.json:ClientId` -> `Domains:0` / `ClientId`; the origin alone -> ''. */
export function shortKey(key: string): string | undefined {
  const match = /(?:^database:[^:]+|\.json)(?::(.*))?$/.exec(key);
  return match ? (match[1] ?? '') : undefined;
}

export function notFound(name: string): AdministrationProblem {
  return new AdministrationProblem(
    'not-found',
    'connection.not_found',
    `No connection is named ${JSON.stringify(name)}.`,
  );
}

export function domainNotFound(domain: string): AdministrationProblem {
  return new AdministrationProblem('not-found', 'domain.not_found', `The connection has no domain ${domain}.`);
}

export function operatorOwned(name: string): AdministrationProblem {
  return new AdministrationProblem(
    'conflict',
    'connection.operator_owned',
    `The connection ${JSON.stringify(name)} is declared by the operator (the configuration, or a file written by hand): change it there.`,
  );
}

export function versionConflict(currentVersion: number | undefined): AdministrationProblem {
  return new AdministrationProblem(
    'conflict',
    'connection.version_conflict',
    currentVersion === undefined
      ? 'The connection was removed meanwhile: read it again before writing.'
      : 'The connection changed since the version this write is based on: read it again, and write from the current version.',
    [],
    currentVersion === undefined ? {} : { currentVersion },
  );
}
