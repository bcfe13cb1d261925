import { expect } from 'chai';
import { isSessionToken, newSessionToken, sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';

describe('session tokens', () => {
  it('are 256-bit base64url tokens, unique across many refills of the random pool', () => {
    const tokens = Array.from({ length: 1000 }, () => newSessionToken());
    expect(new Set(tokens).size).to.equal(1000);
    for (const token of tokens) {
      expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(isSessionToken(token)).to.equal(true);
    }
  });

  it('are stored under a SHA-256 of the token, never the token itself', () => {
    const token = newSessionToken();
    const key = sessionStoreKey(token);
    expect(key).to.match(/^session:[0-9a-f]{64}$/);
    expect(key).not.to.contain(token);
  });

  it('refuses anything that is not a token', () => {
    for (const value of ['', 'short', `${'a'.repeat(43)}=`, 'a'.repeat(44), `${'a'.repeat(42)}+`])
      expect(isSessionToken(value), value).to.equal(false);
  });
});
