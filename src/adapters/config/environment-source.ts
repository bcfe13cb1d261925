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
 * Parses a `.env` file: `NAME=value` lines, `#` comments, optional `export `, and values in
 * single or double quotes. Nothing is expanded or executed.
 */
export function parseDotenv(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.:-]*)\s*=\s*(.*)$/.exec(line);
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
