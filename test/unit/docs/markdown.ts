import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder. */
export const root = fileURLToPath(new URL('../../..', import.meta.url));

/** README.md and every Markdown file under docs/, as paths from the root. */
export function documentationFiles(): string[] {
  const inDocs = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? inDocs(path) : path.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...inDocs(join(root, 'docs')).map((path) => relative(root, path))];
}

export function readDoc(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** The text outside fenced code blocks: what a reader sees as prose, tables and headings. */
export function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a Markdown file's headings make (a repeated heading gets -1, -2 ...). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of withoutCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = headingAnchor(match[1] ?? '');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The targets of a file's inline links (`[text](target)`), code spans and blocks left out. */
export function linkTargets(markdown: string): string[] {
  const prose = withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] ?? '');
}
