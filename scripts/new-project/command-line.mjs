import { AUTH_CHOICES, DEFAULT_CHOICE } from './auth-choices.mjs';
import { DATABASE_CHOICES, DEFAULT_DATABASE } from './database-choice.mjs';

/**
 * @typedef {{ kind: 'help' }
 *   | { kind: 'error', message: string }
 *   | { kind: 'run', target: string, name?: string, authProvider?: string, database?: string }} CommandLine
 */

const OPTIONS = ['--name', '--authProvider', '--database'];

/**
 * Reads `<target-dir> [--name <package-name>] [--authProvider <choice>] [--database <choice>]`, with `--opt=value`
 * accepted too and `-h` / `--help` anywhere. Values are checked later, all at once.
 * @param {readonly string[]} args
 * @returns {CommandLine}
 */
export function parseCommandLine(args) {
  if (args.some((arg) => arg === '-h' || arg === '--help')) return { kind: 'help' };
  /** @type {Record<string, string>} */
  const values = {};
  const positional = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      positional.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const [option = '', inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg];
    if (!OPTIONS.includes(option)) return { kind: 'error', message: `unknown option ${option}` };
    if (option in values) return { kind: 'error', message: `${option} is given twice` };
    const value = inline ?? args[++index];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) {
      return { kind: 'error', message: `${option} needs a value` };
    }
    values[option] = value;
  }
  if (positional.length === 0) return { kind: 'error', message: 'the target directory is missing' };
  if (positional.length > 1) {
    return { kind: 'error', message: `one target directory, not ${positional.length} (${positional.join(', ')})` };
  }
  return {
    kind: 'run',
    target: positional[0] ?? '',
    ...(values['--name'] !== undefined ? { name: values['--name'] } : {}),
    ...(values['--authProvider'] !== undefined ? { authProvider: values['--authProvider'] } : {}),
    ...(values['--database'] !== undefined ? { database: values['--database'] } : {}),
  };
}

/** The text `--help` prints. */
export function usage() {
  const width =
    Math.max(...[...Object.keys(AUTH_CHOICES), ...Object.keys(DATABASE_CHOICES)].map((name) => name.length)) + 2;
  return [
    'Usage: npm run new -- <target-dir> [--name <package-name>] [--authProvider <choice>] [--database <choice>]',
    '       npm exec --package=<gatehouse tarball> -- create-gatehouse <target-dir> [options]',
    '',
    'Creates a new application from Gatehouse in <target-dir>, which must not exist or must be empty.',
    'Nothing is written when anything is wrong.',
    '',
    'Options:',
    "  --name <package-name>    the new package's name (default: the directory's name, made valid for npm)",
    `  --authProvider <choice>  the authentication posture (default: ${DEFAULT_CHOICE}):`,
    ...Object.entries(AUTH_CHOICES).map(([name, choice]) => `      ${name.padEnd(width)}${choice.summary}`),
    `  --database <choice>      where the administration API keeps connections (default: ${DEFAULT_DATABASE}):`,
    ...Object.entries(DATABASE_CHOICES).map(([name, choice]) => `      ${name.padEnd(width)}${choice.summary}`),
    '  -h, --help               this text',
    '',
    'Exit status: 0 created, 1 refused (nothing written), 2 command line not understood.',
  ].join('\n');
}
