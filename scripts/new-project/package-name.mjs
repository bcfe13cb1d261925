import { builtinModules } from 'node:module';

/**
 * npm's rules for the name of a new package, as validate-npm-package-name 7 (the library
 * npm 11 itself uses) applies them: its errors and the warnings that make a name invalid for
 * new packages. Written out here because a generator run from a packed tarball has only the
 * template's dependencies. Each reason says why, in words a person can act on.
 */

const RESERVED = ['node_modules', 'favicon.ico'];
const MAX_LENGTH = 214;
// `@scope/name`: one scope, one name.
const SCOPED = /^(?:@([^/]+?)[/])?([^/]+?)$/;

/**
 * Why npm would reject `name` for a new package; empty when it would accept it.
 * @param {string} name
 * @returns {string[]}
 */
export function packageNameProblems(name) {
  const problems = [];
  if (name.length === 0) problems.push('it is empty');
  if (name.startsWith('.')) problems.push('it starts with a period');
  if (name.startsWith('-')) problems.push('it starts with a hyphen');
  if (name.startsWith('_')) problems.push('it starts with an underscore');
  if (name.trim() !== name) problems.push('it has leading or trailing spaces');
  if (RESERVED.includes(name.toLowerCase())) problems.push(`"${name.toLowerCase()}" is a reserved name`);
  if (builtinModules.includes(name.toLowerCase())) problems.push(`"${name}" is the name of a Node.js core module`);
  if (name.length > MAX_LENGTH) problems.push(`it has ${name.length} characters, more than ${MAX_LENGTH}`);
  if (name.toLowerCase() !== name) problems.push('it has capital letters');
  if (/[~'!()*]/.test(name.split('/').slice(-1)[0] ?? '')) problems.push(`it contains one of the characters ~'!()*`);
  if (!isUrlFriendly(name)) {
    problems.push('it has characters that are not URL-friendly (use lowercase letters, digits, "-", "." and "_")');
  }
  const unscoped = SCOPED.exec(name)?.[2];
  if (name.startsWith('@') && unscoped?.startsWith('.')) problems.push('its name after the scope starts with a period');
  return problems;
}

/** A name survives in a URL as it is, or is a scope and a name that each do. */
function isUrlFriendly(/** @type {string} */ name) {
  if (encodeURIComponent(name) === name) return true;
  const match = SCOPED.exec(name);
  const [scope, unscoped] = [match?.[1], match?.[2]];
  return (
    scope !== undefined &&
    unscoped !== undefined &&
    encodeURIComponent(scope) === scope &&
    encodeURIComponent(unscoped) === unscoped
  );
}

/**
 * A valid package name from a directory name: lowercase, accents dropped, every run of
 * other characters turned into one "-", no leading ".", "_" or "-", at most 214
 * characters; "app" when nothing is left, and "-app" appended to a reserved or core
 * module name ("http" becomes "http-app").
 * @param {string} directoryName
 * @returns {string}
 */
export function packageNameFromDirectory(directoryName) {
  const name = directoryName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .slice(0, MAX_LENGTH)
    .replace(/[._-]+$/, '');
  if (name === '') return 'app';
  return packageNameProblems(name).length === 0 ? name : `${name.slice(0, MAX_LENGTH - 4)}-app`;
}
