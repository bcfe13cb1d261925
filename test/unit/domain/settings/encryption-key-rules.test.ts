import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { checkEncryptionKeys } from '../../../../src/domain/settings/encryption-key-rules.js';

const key = (index: number) => `ProjectTemplate:Administration:EncryptionKeys:${index}`;
const A = randomBytes(32).toString('base64');
const B = randomBytes(32).toString('base64');
/** Canonical "all ones" key, and the same 32 bytes with one of the 2 unused trailing bits set. */
const ONES = Buffer.alloc(32, 0xff).toString('base64');
const ONES_OTHER_SPELLING = `${ONES.slice(0, 42)}/=`;

describe('checkEncryptionKeys', () => {
  it('accepts no key, one key, or several distinct keys', () => {
    expect(checkEncryptionKeys([])).to.deep.equal([]);
    expect(checkEncryptionKeys([A])).to.deep.equal([]);
    expect(checkEncryptionKeys([A, B, ONES])).to.deep.equal([]);
  });

  const cases: [string, string[], string[]][] = [
    ['an empty string', [A, ''], [key(1)]],
    ['16 bytes', [randomBytes(16).toString('base64')], [key(0)]],
    ['31 bytes', [randomBytes(31).toString('base64')], [key(0)]],
    ['33 bytes', [randomBytes(33).toString('base64')], [key(0)]],
    ['64 bytes', [randomBytes(64).toString('base64')], [key(0)]],
    ['32 bytes in base64url', [Buffer.alloc(32, 0xfb).toString('base64url')], [key(0)]],
    ['32 bytes in base64 without padding', [A.slice(0, 43)], [key(0)]],
    ['32 bytes in hex', [randomBytes(32).toString('hex')], [key(0)]],
    ['a passphrase', ['correct horse battery staple'], [key(0)]],
    ['a key with a line break after it', [`${A}\n`], [key(0)]],
    ['a key with a space before it', [` ${A}`], [key(0)]],
    ['a key in a non-canonical spelling', [ONES_OTHER_SPELLING], [key(0)]],
    ['one key listed twice', [A, B, A], [key(2)]],
    ['one key listed three times', [B, B, B], [key(1), key(2)]],
    ['one bad key among good ones', [A, 'not a key', B], [key(1)]],
  ];
  for (const [name, values, keys] of cases) {
    it(`refuses ${name}, naming the entry and never its value`, () => {
      const problems = checkEncryptionKeys(values);
      expect(problems.map((problem) => problem.key)).to.deep.equal(keys);
      for (const problem of problems) {
        expect(problem.severity).to.equal('error');
        for (const value of values.filter((value) => value.trim().length >= 4)) {
          expect(`${problem.key} ${problem.message}`).to.not.include(value.trim());
        }
      }
    });
  }

  it('tells the three refusals apart', () => {
    const [notBase64, wrongLength, duplicate] = [
      checkEncryptionKeys(['not a key!']),
      checkEncryptionKeys([randomBytes(16).toString('base64')]),
      checkEncryptionKeys([A, A]),
    ].map((problems) => problems[0]?.message ?? '');
    expect(notBase64).to.match(/not base64/);
    expect(wrongLength).to.match(/not 32 bytes/);
    expect(duplicate).to.match(/same key as ProjectTemplate:Administration:EncryptionKeys:0/);
  });
});
