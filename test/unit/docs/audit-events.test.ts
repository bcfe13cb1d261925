import { expect } from 'chai';
import { AUDIT_EVENT_TYPES } from '../../../src/application/ports/audit-log.js';
import { readDoc, withoutCodeBlocks } from './markdown.js';

/** The event names in the first column of docs/operations.md's table of audit events. */
function documentedEvents(): string[] {
  const page = withoutCodeBlocks(readDoc('docs/operations.md'));
  const start = page.indexOf('## Audit events');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([a-z_.]+)`/g)].map((match) => match[1] ?? ''));
}

/** The audit events' table is the port's vocabulary: an event added to the code needs its row. */
describe('docs/operations.md: the audit events', () => {
  it('names every event of the vocabulary (AUDIT_EVENT_TYPES), each once', () => {
    const documented = documentedEvents();
    expect(AUDIT_EVENT_TYPES.filter((type) => !documented.includes(type))).to.deep.equal([]);
    expect(documented.filter((type, index) => documented.indexOf(type) !== index)).to.deep.equal([]);
  });

  it('names no event outside it', () => {
    const vocabulary: readonly string[] = AUDIT_EVENT_TYPES;
    expect(documentedEvents().filter((type) => !vocabulary.includes(type))).to.deep.equal([]);
  });
});
