import { expect } from 'chai';
import type { Queryable } from '../../../src/adapters/postgres/directory-feed.js';
import { findUsers } from '../../../src/adapters/postgres/directory-pages.js';
import { preparing } from '../../../src/adapters/postgres/prepared-statements.js';

/** A Queryable recording what it is asked to run: a text, or a QueryConfig as given. */
function recording() {
  const sent: unknown[] = [];
  const db = {
    query: async (textOrConfig: unknown) => {
      sent.push(textOrConfig);
      return { rows: [], rowCount: 0 };
    },
  } as unknown as Queryable;
  return { db, sent };
}

const nameOf = (sent: unknown) =>
  typeof sent === 'object' && sent !== null && 'name' in sent ? (sent as { name: unknown }).name : undefined;

describe('preparing: the directory store prepares its fixed statements, never a text a client chose', () => {
  it('names a text given with values by its hash, the same name for the same text; leaves the rest as given', async () => {
    const { db, sent } = recording();
    const prepared = preparing(db);
    await prepared.query('SELECT $1::text', ['a']);
    await prepared.query('SELECT $1::text', ['b']);
    await prepared.query('SELECT $1::integer', [1]);
    await prepared.query({ text: 'SELECT $1::text' }, ['c']);
    await prepared.query('SELECT 1');
    const [first, second, other, config, bare] = sent;
    expect(nameOf(first)).to.match(/^gatehouse_[0-9a-f]{32}$/);
    expect(first).to.deep.include({ text: 'SELECT $1::text', values: ['a'] });
    expect(nameOf(second)).to.equal(nameOf(first));
    expect(nameOf(other)).to.not.equal(nameOf(first));
    expect(config).to.deep.equal({ text: 'SELECT $1::text' });
    expect(bare).to.equal('SELECT 1');
  });

  it("prepares a page and one key's lookup, not a filter of any other shape", async () => {
    const { db, sent } = recording();
    const prepared = preparing(db);
    const page = { startIndex: 1, count: 100 };
    await findUsers(prepared, 'acme', page);
    await findUsers(prepared, 'acme', { ...page, filter: { op: 'eq', attribute: 'userName', value: 'ada@acme.test' } });
    await findUsers(prepared, 'acme', { ...page, filter: { op: 'eq', attribute: 'userName', value: 'bob@acme.test' } });
    await findUsers(prepared, 'acme', { ...page, filter: { op: 'co', attribute: 'title', value: 'x' } });
    await findUsers(prepared, 'acme', {
      ...page,
      filter: {
        op: 'or',
        filters: [
          { op: 'eq', attribute: 'userName', value: 'a' },
          { op: 'eq', attribute: 'externalId', value: 'b' },
        ],
      },
    });
    const [all, ada, bob, title, either] = sent.map(nameOf);
    expect(all).to.be.a('string');
    expect(ada).to.be.a('string').and.not.equal(all);
    expect(bob).to.equal(ada);
    expect(title).to.equal(undefined);
    expect(either).to.equal(undefined);
  });
});
