import { warning, type SettingsProblem } from '../../domain/settings/problem.js';
import type { Tree } from './canonicalize.js';

const SECTION = 'projecttemplate';

/**
 * Turns `ProjectTemplate__A__B=value` variables into `{ A: { B: 'value' } }`. The section
 * name is matched case-insensitively; segments keep their spelling for canonicalize().
 */
export function treeFromEnvironment(variables: Record<string, string | undefined>): Tree {
  const tree: Tree = {};
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined) continue;
    const segments = name.split('__');
    if (segments.length < 2 || segments[0]?.toLowerCase() !== SECTION) continue;
    let node = tree;
    const path = segments.slice(1);
    path.forEach((segment, index) => {
      if (index === path.length - 1) {
        node[segment] = value;
        return;
      }
      const next = node[segment];
      node = node[segment] = typeof next === 'object' && next !== null ? (next as Tree) : {};
    });
  }
  return tree;
}

/**
 * A warning for each `ProjectTemplate__` variable whose name holds more than letters,
 * digits and `_` (a policy name's `.`, a connection name's `-`, a claim URI's `:` and `/`).
 * It arrived here, but dash, the `/bin/sh` of Debian, Ubuntu and the `node` images (what
 * `npm start` and `sh -c` run), drops such a variable without a word: the same setting is
 * silently lost the day the process is started through a shell. Each such key has a
 * spelling of letters, digits and `_` (docs/configuration.md).
 */
export function shellDroppedNames(variables: Record<string, string | undefined>): SettingsProblem[] {
  return Object.keys(variables)
    .filter((name) => name.split('__')[0]?.toLowerCase() === SECTION && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map((name) =>
      warning(
        name.split('__').join(':'),
        'arrived in an environment variable whose name /bin/sh drops (dash, which npm start runs on Debian and Ubuntu, keeps only letters, digits and _ in a name): started through a shell, this setting would be lost without a word. Use the spelling of letters, digits and _ (a StepUp section with its Policy key, a labelled mapping row, a connection name without -), or put it in .env or config/appsettings.json',
      ),
    );
}

/**
 * Parses a `.env` file: `NAME=value` lines, `#` comments, optional `export `, and values in
 * single or double quotes. Nothing is expanded or executed.
 */
export function parseDotenv(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.:/-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, name = '', rest = ''] = match;
    const quoted = /^(["'])(.*)\1$/.exec(rest);
    variables[name] = quoted
      ? quoted[1] === '"'
        ? (quoted[2] ?? '').replace(/\\n/g, '\n')
        : (quoted[2] ?? '')
      : rest.replace(/\s+#.*$/, '');
  }
  return variables;
}
