import { expect } from 'chai';
import type { CatalogEntry } from '../../../../src/application/ports/connection-catalog.js';
import {
  CATALOG_MARK,
  entryOfFile,
  fileOfEntry,
  isCatalogFile,
} from '../../../../src/adapters/connections/catalog-file.js';

const T0 = Date.UTC(2026, 10, 1, 12, 30, 45, 123);
const HOUR = 3_600_000;

const entry: CatalogEntry = {
  name: 'Acme',
  keys: {
    Protocol: 'OpenIdConnect',
    Organization: 'acme',
    Domains: ['acme.com', 'acme.io', '*.acme.com'],
    Authority: 'https://login.acme.example',
    ClientId: 'acme-client',
    ClientSecret: 'gh1.0a1b2c3d.bm9uY2Vub25jZW5v.c2VhbGVkc2VhbGVkc2VhbGVkc2VhbGVk',
    Enabled: true,
  },
  domains: [
    { domain: 'acme.com', token: 'k3Jq9VxP2mW7tR4sYb8nLc', verifiedAt: T0, checkedAt: T0 + HOUR, misses: 2 },
    { domain: 'acme.io', token: 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3S', checkedAt: T0, misses: 0 },
    { domain: '*.acme.com', token: '', misses: 0 },
  ],
  version: 7,
  updatedAt: T0 + 2 * HOUR,
};

/** The JSON of `entry`'s file with `change` made to its mark. */
function fileWithMark(change: (mark: Record<string, unknown>) => void): Record<string, unknown> {
  const raw = JSON.parse(fileOfEntry(entry)) as Record<string, unknown>;
  change(raw[CATALOG_MARK] as Record<string, unknown>);
  return raw;
}

describe('the catalog file: a connection file with the API mark', () => {
  it('reads back the entry it was written from: keys, proofs, version and time', () => {
    const raw = JSON.parse(fileOfEntry(entry)) as unknown;
    expect(isCatalogFile(raw)).to.equal(true);
    expect(entryOfFile('Acme', raw as Record<string, unknown>)).to.deep.equal(entry);
  });

  it("holds the connection's keys as a hand-written file has them, and the mark beside them", () => {
    const text = fileOfEntry(entry);
    expect(text.endsWith('}\n')).to.equal(true);
    const raw = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(raw)).to.deep.equal([...Object.keys(entry.keys), CATALOG_MARK]);
    expect(raw[CATALOG_MARK]).to.deep.include({ writtenBy: 'administration-api', version: 7 });
    expect((raw[CATALOG_MARK] as { updatedAt: string }).updatedAt).to.equal(new Date(T0 + 2 * HOUR).toISOString());
  });

  it('names the entry after the file, whatever the mark holds', () => {
    const raw = JSON.parse(fileOfEntry(entry)) as Record<string, unknown>;
    expect(entryOfFile('acme', raw)?.name).to.equal('acme');
  });

  it('tells a hand-written file (no mark) from one the API wrote', () => {
    expect(isCatalogFile({ ...entry.keys })).to.equal(false);
    expect(isCatalogFile([entry.keys])).to.equal(false);
    expect(isCatalogFile(null)).to.equal(false);
    expect(isCatalogFile('{"$catalog":{}}')).to.equal(false);
    expect(isCatalogFile({ ...entry.keys, [CATALOG_MARK]: null })).to.equal(true);
  });

  const malformed: ReadonlyArray<[label: string, change: (mark: Record<string, unknown>) => void]> = [
    ['written by someone else', (mark) => void (mark.writtenBy = 'a-provisioning-script')],
    ['without a writer', (mark) => void delete mark.writtenBy],
    ['at version 0', (mark) => void (mark.version = 0)],
    ['at a negative version', (mark) => void (mark.version = -3)],
    ['at a fractional version', (mark) => void (mark.version = 1.5)],
    ['at a version written as text', (mark) => void (mark.version = '7')],
    ['at a version past what a number holds exactly', (mark) => void (mark.version = 2 ** 53)],
    ['without a version', (mark) => void delete mark.version],
    ['with a time that is not text', (mark) => void (mark.updatedAt = T0)],
    ['with a time that is no time', (mark) => void (mark.updatedAt = 'last Tuesday-ish')],
    ['without domains', (mark) => void delete mark.domains],
    ['with domains that are no list', (mark) => void (mark.domains = { 'acme.com': {} })],
    [
      'with a domain that is not text',
      (mark) => void ((mark.domains as Array<Record<string, unknown>>)[0]!.domain = 42),
    ],
    ['with a domain without a token', (mark) => void delete (mark.domains as Array<Record<string, unknown>>)[0]!.token],
    [
      'with a domain whose misses are not a whole number',
      (mark) => void ((mark.domains as Array<Record<string, unknown>>)[0]!.misses = 0.5),
    ],
    [
      'with a domain verified at a time that is not one',
      (mark) => void ((mark.domains as Array<Record<string, unknown>>)[0]!.verifiedAt = 'yesterday-ish'),
    ],
    [
      'with a domain checked at a time that is not text',
      (mark) => void ((mark.domains as Array<Record<string, unknown>>)[1]!.checkedAt = T0),
    ],
    ['with a domain that is not an object', (mark) => void ((mark.domains as unknown[])[2] = 'acme.com')],
  ];
  for (const [label, change] of malformed) {
    it(`reads no entry from a mark ${label}`, () => {
      expect(entryOfFile('Acme', fileWithMark(change))).to.equal(undefined);
    });
  }

  it('reads no entry from a mark that is not an object', () => {
    for (const mark of [null, 'administration-api', 7, [], true]) {
      expect(entryOfFile('Acme', { ...entry.keys, [CATALOG_MARK]: mark }), JSON.stringify(mark)).to.equal(undefined);
    }
  });
});
