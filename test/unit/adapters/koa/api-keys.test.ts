import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { ApiKeys, newApiKey } from '../../../../src/adapters/koa/api-keys.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('API keys: the administration API knows a key by its hash', () => {
  const first = newApiKey(randomBytes);
  const second = newApiKey(randomBytes);
  const keys = new ApiKeys([first.hash, second.hash]);

  it('makes a key of 256 random bits, with the SHA-256 of it to configure and an id', () => {
    expect(first.key).to.match(/^gh_[A-Za-z0-9_-]{43}$/);
    expect(first.hash).to.equal(sha256(first.key));
    expect(first.hash).to.match(/^[0-9a-f]{64}$/);
    expect(first.id).to.equal(first.hash.slice(0, 12));
    expect(second.key).to.not.equal(first.key);
  });

  it('makes the key from the random bytes it is given', () => {
    const fixed = newApiKey((bytes) => Buffer.alloc(bytes, 0xab));
    expect(fixed.key).to.equal(`gh_${Buffer.alloc(32, 0xab).toString('base64url')}`);
    expect(fixed.hash).to.equal(sha256(fixed.key));
  });

  it('identifies each configured key by the first 12 hex digits of its hash', () => {
    expect(keys.identify(first.key)).to.equal(first.hash.slice(0, 12));
    expect(keys.identify(second.key)).to.equal(second.hash.slice(0, 12));
    expect(keys.size).to.equal(2);
  });

  it('identifies a key hashed by anyone the same way (the hash is the whole of the configuration)', () => {
    const chosen = 'gh_a-key-a-job-was-given';
    expect(new ApiKeys([sha256(chosen)]).identify(chosen)).to.equal(sha256(chosen).slice(0, 12));
  });

  it('refuses a key it was not given, and every near miss of one it was', () => {
    const misses = [
      newApiKey(randomBytes).key,
      '',
      first.key.slice(0, -1),
      `${first.key}=`,
      `${first.key} `,
      ` ${first.key}`,
      first.key.toUpperCase(),
      first.key.replace(/^gh_/, ''),
      first.hash,
      first.id,
      `${first.key.slice(0, -1)}${first.key.endsWith('A') ? 'B' : 'A'}`,
    ];
    for (const presented of misses) expect(keys.identify(presented), JSON.stringify(presented)).to.equal(undefined);
  });

  it('refuses every key when none is configured', () => {
    const none = new ApiKeys([]);
    expect(none.size).to.equal(0);
    expect(none.identify(first.key)).to.equal(undefined);
    expect(none.identify('')).to.equal(undefined);
  });
});
