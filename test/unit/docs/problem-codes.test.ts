import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readDoc, root } from './markdown.js';

/** The families of codes a request can be refused with (`config.*` stops a start instead). */
const FAMILIES = ['idp', 'auth', 'session', 'request', 'antiforgery', 'governance'];
const CODE = new RegExp(`^(?:${FAMILIES.join('|')})\\.[a-z_]+$`);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every problem code written as a string literal in src/: where the code can raise or report it. */
function codesInSource(): Set<string> {
  const codes = new Set<string>();
  for (const file of sourceFiles(join(root, 'src'))) {
    for (const [, literal = ''] of readFileSync(file, 'utf8').matchAll(/['"`]([a-z]+\.[a-z_]+)['"`]/g))
      if (CODE.test(literal)) codes.add(literal);
  }
  return codes;
}

describe('docs/http-surface.md', () => {
  let inSource: Set<string>;
  let onPage: Set<string>;
  before(() => {
    inSource = codesInSource();
    const page = readDoc('docs/http-surface.md');
    onPage = new Set(
      [...page.matchAll(/`([a-z]+\.[a-z_]+)`/g)].map((match) => match[1] ?? '').filter((code) => CODE.test(code)),
    );
  });

  it('finds the problem codes in the source', () => {
    expect([...inSource]).to.include.members([
      'idp.state_mismatch',
      'auth.unauthenticated',
      'session.store_unavailable',
    ]);
  });

  it('names every problem code the code can emit', () => {
    expect([...inSource].filter((code) => !onPage.has(code)).sort()).to.deep.equal([]);
  });

  it('names no problem code the code cannot emit', () => {
    expect([...onPage].filter((code) => !inSource.has(code)).sort()).to.deep.equal([]);
  });
});

/** The administration API's own families; the audit events' names (`connection.created` ...) are events, not problems. */
const ADMIN_FAMILIES = ['connection', 'domain', 'catalog', 'secrets', 'admin'];
const ADMIN_CODE = new RegExp(`^(?:${ADMIN_FAMILIES.join('|')})\\.[a-z_]+$`);

describe("docs/http-surface.md: the administration API's problems", () => {
  it('names every code of its families the code can emit, audit event names aside', async () => {
    const { AUDIT_EVENT_TYPES } = await import('../../../src/application/ports/audit-log.js');
    const events: ReadonlySet<string> = new Set(AUDIT_EVENT_TYPES);
    const inSource = new Set<string>();
    for (const file of sourceFiles(join(root, 'src'))) {
      for (const [, literal = ''] of readFileSync(file, 'utf8').matchAll(/['"`]([a-z]+\.[a-z_]+)['"`]/g))
        if (ADMIN_CODE.test(literal) && !events.has(literal)) inSource.add(literal);
    }
    const page = readDoc('docs/http-surface.md');
    const onPage = new Set([...page.matchAll(/`([a-z]+\.[a-z_]+)`/g)].map((match) => match[1] ?? ''));
    expect([...inSource]).to.include.members(['connection.version_conflict', 'domain.taken', 'catalog.unavailable']);
    expect([...inSource].filter((code) => !onPage.has(code)).sort()).to.deep.equal([]);
  });
});
