import { error, keyOf, type SettingsProblem } from './problem.js';
import type { ProjectTemplateSettings } from './settings.js';

/** Ten years: a longer retention is keeping everything, which a number of days should not pretend to bound. */
const MAX_RETENTION_DAYS = 3_650;
/** A share smaller than one slow search (about half a second at 100,000 users) would refuse them all. */
const MIN_SEARCH_MS_PER_MINUTE = 500;
const MAX_SEARCH_MS_PER_MINUTE = 60_000;

/** The smallest body limit that still takes one change of 10,000 group members (about 50 bytes each). */
const MIN_BODY_BYTES = 600_000;

/** Whether directory sync keeps organizations' directories in the embedded store: on, without a database. */
export function usesEmbeddedDirectoryStore(settings: ProjectTemplateSettings): boolean {
  return settings.Directory.Enabled && settings.Database.ConnectionString.trim() === '';
}

/**
 * The rules for `Directory`: directory sync is managed through the administration API (its
 * tokens are made there) and keeps organizations' people in PostgreSQL, or without a database
 * in the embedded store (a SQLite file through node:sqlite) of the one instance there is;
 * its limits are whole numbers that still let a directory push what the big ones push.
 * `embeddedStore` says whether this Node.js has node:sqlite (the domain cannot ask: bootstrap
 * does, when the settings use the embedded store).
 */
export function checkDirectory(settings: ProjectTemplateSettings, embeddedStore = true): SettingsProblem[] {
  const directory = settings.Directory;
  const key = (...path: string[]) => keyOf('Directory', ...path);
  const problems: SettingsProblem[] = [];
  if (!Number.isInteger(directory.RequestsPerMinute) || directory.RequestsPerMinute < 60) {
    problems.push(error(key('RequestsPerMinute'), 'must be a whole number, at least 60'));
  }
  if (!Number.isInteger(directory.FailedAuthenticationsPerMinute) || directory.FailedAuthenticationsPerMinute < 1) {
    problems.push(error(key('FailedAuthenticationsPerMinute'), 'must be a whole number, at least 1'));
  }
  if (!Number.isInteger(directory.MaxBodyBytes) || directory.MaxBodyBytes < MIN_BODY_BYTES) {
    problems.push(
      error(
        key('MaxBodyBytes'),
        `must be a whole number of bytes, at least ${MIN_BODY_BYTES} (a directory changes 10,000 group members in one request)`,
      ),
    );
  }
  if (
    !Number.isInteger(directory.ChangeRetentionDays) ||
    directory.ChangeRetentionDays < 1 ||
    directory.ChangeRetentionDays > MAX_RETENTION_DAYS
  ) {
    problems.push(error(key('ChangeRetentionDays'), `must be a whole number of days, from 1 to ${MAX_RETENTION_DAYS}`));
  }
  if (
    !Number.isInteger(directory.EmbeddedSearchMsPerMinute) ||
    directory.EmbeddedSearchMsPerMinute < MIN_SEARCH_MS_PER_MINUTE ||
    directory.EmbeddedSearchMsPerMinute > MAX_SEARCH_MS_PER_MINUTE
  ) {
    problems.push(
      error(
        key('EmbeddedSearchMsPerMinute'),
        `must be a whole number of milliseconds, from ${MIN_SEARCH_MS_PER_MINUTE} (one slow search) to ${MAX_SEARCH_MS_PER_MINUTE} (the whole minute)`,
      ),
    );
  }
  if (!directory.Enabled) return problems;
  if (!settings.Administration.Enabled) {
    problems.push(
      error(key('Enabled'), "needs Administration:Enabled: each organization's SCIM token is made through it"),
    );
  }
  if (!usesEmbeddedDirectoryStore(settings)) return problems;
  if (settings.Session.Store === 'Redis') {
    problems.push(
      error(
        key('Enabled'),
        'with Session:Store Redis needs Database:ConnectionString (or DATABASE_URL): sessions in Redis mean several instances, and without a database each would keep a directory of its own in its embedded file; keep directories in PostgreSQL',
      ),
    );
  }
  if (!embeddedStore) {
    problems.push(
      error(
        key('Enabled'),
        'without Database:ConnectionString keeps directories in the embedded store, which needs node:sqlite: run Node.js 22.13 or later, or set Database:ConnectionString (or DATABASE_URL) to keep them in PostgreSQL',
      ),
    );
  }
  if (directory.EmbeddedFile.trim() === '') {
    problems.push(
      error(
        key('EmbeddedFile'),
        'must name a file: without Database:ConnectionString, directory sync keeps directories in this SQLite file',
      ),
    );
  }
  return problems;
}
