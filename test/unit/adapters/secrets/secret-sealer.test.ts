import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { SecretSealer, type SealingContext } from '../../../../src/adapters/secrets/secret-sealer.js';
import { isGatehouseError, type GatehouseError } from '../../../../src/domain/errors.js';

const SECRET = 'SENTINEL-client-secret-9f3a7c';
const newKey = () => randomBytes(32).toString('base64');
const OLD_KEY = newKey();
const NEW_KEY = newKey();
const STRANGER_KEY = newKey();
const idOf = (key: string) => createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 8);
const ACME: SealingContext = { connection: 'acme', field: 'ClientSecret' };

/** Every error a test provoked, checked at the end for anything it must never carry. */
const provoked: { error: GatehouseError; forbidden: string[] }[] = [];

function refusal(action: () => unknown, forbidden: string[] = []): GatehouseError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  if (!isGatehouseError(caught)) throw new Error(`expected a GatehouseError, got ${String(caught)}`);
  provoked.push({ error: caught, forbidden });
  return caught;
}

/** `sealed` with one bit flipped in its part number `part` (0 version, 1 key id, 2 nonce, 3 body) at byte `at`. */
function flipped(sealed: string, part: 2 | 3, at: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  const index = at < 0 ? bytes.length + at : at;
  bytes[index] = bytes[index]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

const withPart = (sealed: string, part: number, value: string) =>
  sealed
    .split('.')
    .map((piece, index) => (index === part ? value : piece))
    .join('.');

describe('SecretSealer', () => {
  const sealer = new SecretSealer([NEW_KEY]);

  it('opens what it sealed, for the same connection and field', () => {
    for (const secret of [SECRET, 'é, 漢字 and 🔑', '-----BEGIN PRIVATE KEY-----\n' + 'A'.repeat(3000)]) {
      expect(sealer.open(sealer.seal(secret, ACME), ACME)).to.equal(secret);
    }
  });

  it('writes one self-describing string: version, key id, 12-byte nonce, ciphertext and 16-byte tag', () => {
    const [version, keyId, nonce, body, ...rest] = sealer.seal(SECRET, ACME).split('.');
    expect(rest).to.deep.equal([]);
    expect(version).to.equal('gh1');
    expect(keyId).to.equal(idOf(NEW_KEY));
    expect(Buffer.from(nonce!, 'base64url')).to.have.length(12);
    expect(Buffer.from(body!, 'base64url')).to.have.length(Buffer.byteLength(SECRET) + 16);
  });

  it('seals one secret differently each time (a new nonce each seal)', () => {
    const seals = Array.from({ length: 20 }, () => sealer.seal(SECRET, ACME));
    expect(new Set(seals).size).to.equal(20);
    expect(new Set(seals.map((sealed) => sealed.split('.')[2])).size).to.equal(20);
  });

  it('refuses an empty secret, and one too large, rather than sealing it', () => {
    expect(refusal(() => sealer.seal('', ACME)).code).to.equal('secrets.secret_empty');
    expect(refusal(() => sealer.seal('x'.repeat(16 * 1024 + 1), ACME)).code).to.equal('secrets.secret_too_large');
  });

  it('refuses to seal or open for an unnamed connection or field', () => {
    const sealed = sealer.seal(SECRET, ACME);
    for (const context of [
      { connection: '', field: 'ClientSecret' },
      { connection: 'acme', field: '' },
    ]) {
      expect(refusal(() => sealer.seal(SECRET, context)).code).to.equal('secrets.context_invalid');
      expect(refusal(() => sealer.open(sealed, context), [sealed]).code).to.equal('secrets.context_invalid');
    }
  });

  describe('a value moved to where it was not sealed for does not open', () => {
    const sealed = sealer.seal(SECRET, ACME);
    const cases: [string, SealingContext][] = [
      ['another connection', { connection: 'globex', field: 'ClientSecret' }],
      ['another field', { connection: 'acme', field: 'SigningKey' }],
      ['both swapped', { connection: 'ClientSecret', field: 'acme' }],
      ['a name running into the next', { connection: 'acmeClient', field: 'Secret' }],
      ['a name differing in case', { connection: 'Acme', field: 'ClientSecret' }],
    ];
    for (const [name, context] of cases) {
      it(name, () => {
        expect(refusal(() => sealer.open(sealed, context), [sealed]).code).to.equal('secrets.open_failed');
      });
    }
  });

  describe('an altered value does not open', () => {
    const other = new SecretSealer([STRANGER_KEY, NEW_KEY]);
    const sealed = sealer.seal(SECRET, ACME);
    const cases: [string, string][] = [
      ['a bit of the nonce', flipped(sealed, 2, 0)],
      ['the last bit of the nonce', flipped(sealed, 2, -1)],
      ['a bit of the ciphertext', flipped(sealed, 3, 0)],
      ['a bit of the tag', flipped(sealed, 3, -1)],
      ['the key id of another configured key', withPart(sealed, 1, idOf(STRANGER_KEY))],
    ];
    for (const [name, altered] of cases) {
      it(name, () => {
        expect(altered).to.not.equal(sealed);
        expect(refusal(() => other.open(altered, ACME), [altered, sealed]).code).to.equal('secrets.open_failed');
      });
    }
  });

  describe('a malformed value is refused before any decryption', () => {
    const sealed = sealer.seal(SECRET, ACME);
    const [, keyId, nonce, body] = sealed.split('.') as [string, string, string, string];
    const cases: [string, string][] = [
      ['an empty string', ''],
      ['the secret itself, unsealed', SECRET],
      ['another version', withPart(sealed, 0, 'gh2')],
      ['no version', sealed.slice(sealed.indexOf('.') + 1)],
      ['a fifth part', `${sealed}.AAAA`],
      // A key id of digits alone has no capitals: its first character is made a capital letter so the case is never the valid id.
      ['a key id in capitals', withPart(sealed, 1, `F${keyId.slice(1).toUpperCase()}`)],
      ['a short key id', withPart(sealed, 1, keyId.slice(1))],
      ['a short nonce', withPart(sealed, 2, nonce.slice(4))],
      ['a nonce with a character too many (a lax decoder drops it)', withPart(sealed, 2, `${nonce}A`)],
      ['a nonce in standard base64', withPart(sealed, 2, Buffer.alloc(12, 0xfb).toString('base64'))],
      ['a body with padding', withPart(sealed, 3, `${body}=`)],
      ['a body with a character base64url lacks', withPart(sealed, 3, `${body.slice(0, -1)}+`)],
      ['a body of a tag alone', withPart(sealed, 3, body.slice(-22))],
      ['a body far too large', withPart(sealed, 3, 'A'.repeat(100_000))],
      ['whitespace around it', ` ${sealed}\n`],
    ];
    for (const [name, malformed] of cases) {
      it(name, () => {
        const error = refusal(() => sealer.open(malformed, ACME), [malformed]);
        expect(error.code).to.equal('secrets.sealed_invalid');
        expect(refusal(() => sealer.needsResealing(malformed), [malformed]).code).to.equal('secrets.sealed_invalid');
      });
    }
  });

  it('refuses a value sealed under a key it does not hold, naming the key id', () => {
    const sealed = new SecretSealer([STRANGER_KEY]).seal(SECRET, ACME);
    for (const action of [() => sealer.open(sealed, ACME), () => sealer.needsResealing(sealed)]) {
      const error = refusal(action, [sealed]);
      expect(error.code).to.equal('secrets.key_unknown');
      expect(error.message).to.include(idOf(STRANGER_KEY));
    }
  });

  it('rotates: a value sealed under the old key opens with [new, old], needs resealing, and once resealed opens with [new] alone', () => {
    const underOld = new SecretSealer([OLD_KEY]).seal(SECRET, ACME);
    const rotating = new SecretSealer([NEW_KEY, OLD_KEY]);
    expect(rotating.open(underOld, ACME)).to.equal(SECRET);
    expect(rotating.needsResealing(underOld)).to.equal(true);

    const resealed = rotating.reseal(underOld, ACME);
    expect(rotating.needsResealing(resealed)).to.equal(false);
    expect(resealed.split('.')[1]).to.equal(idOf(NEW_KEY));
    const rotated = new SecretSealer([NEW_KEY]);
    expect(rotated.open(resealed, ACME)).to.equal(SECRET);
    expect(rotated.needsResealing(resealed)).to.equal(false);
    expect(refusal(() => rotated.open(underOld, ACME), [underOld]).code).to.equal('secrets.key_unknown');
  });

  it('reseal keeps the binding: a value cannot be resealed for another connection', () => {
    const underOld = new SecretSealer([OLD_KEY]).seal(SECRET, ACME);
    const rotating = new SecretSealer([NEW_KEY, OLD_KEY]);
    const globex = { connection: 'globex', field: 'ClientSecret' };
    expect(refusal(() => rotating.reseal(underOld, globex), [underOld]).code).to.equal('secrets.open_failed');
  });

  describe('refuses keys it cannot trust, naming the entry and never the value', () => {
    const raw = randomBytes(32);
    const cases: [string, string[], string][] = [
      ['no key at all', [], 'ProjectTemplate:Administration:EncryptionKeys'],
      ['16 bytes', [randomBytes(16).toString('base64')], ':0'],
      ['33 bytes', [randomBytes(33).toString('base64')], ':0'],
      ['32 bytes in base64url', [raw.toString('base64url')], ':0'],
      ['32 bytes in hex', [raw.toString('hex')], ':0'],
      ['a passphrase', ['correct horse battery staple SENTINEL'], ':0'],
      ['a key with a line break after it', [`${NEW_KEY}\n`], ':0'],
      ['one key listed twice', [NEW_KEY, OLD_KEY, NEW_KEY], ':2'],
    ];
    for (const [name, keys, named] of cases) {
      it(name, () => {
        const error = refusal(() => new SecretSealer(keys), keys);
        expect(error.code).to.equal('secrets.keys_invalid');
        expect(error.message).to.include(named);
      });
    }
  });

  it('shows no key when inspected or serialised', () => {
    const both = new SecretSealer([NEW_KEY, OLD_KEY]);
    const shown = `${inspect(both, { showHidden: true, depth: 10 })} ${JSON.stringify(both)} ${String(both)}`;
    for (const key of [NEW_KEY, OLD_KEY]) {
      expect(shown).to.not.include(key);
      expect(shown).to.not.include(Buffer.from(key, 'base64').toString('hex'));
    }
  });

  it('never carries the secret in the sealed string', () => {
    const sealed = sealer.seal(SECRET, ACME);
    for (const spelling of ['utf8', 'base64', 'base64url', 'hex'] as const) {
      expect(sealed).to.not.include(Buffer.from(SECRET).toString(spelling));
    }
  });

  // Nested suites run after the tests beside them, in order: this one is last and sees every refusal provoked above.
  describe('every refusal above', () => {
    it('never puts the secret, a key, or the sealed text in an error message', () => {
      expect(provoked.length).to.be.greaterThan(30);
      const keys = [OLD_KEY, NEW_KEY, STRANGER_KEY].flatMap((key) => [key, Buffer.from(key, 'base64').toString('hex')]);
      for (const { error, forbidden } of provoked) {
        const shown = `${error.message} ${String(error.stack)} ${inspect(error)}`;
        expect(error.cause).to.equal(undefined);
        for (const value of [SECRET, ...keys, ...forbidden.filter((value) => value.length >= 8)]) {
          expect(shown, error.code).to.not.include(value.trim());
        }
      }
    });
  });
});
