import { expect } from 'chai';
import * as client from 'openid-client';
import { pkceChallenge } from '../../../src/adapters/oauth2/pkce.js';

describe('pkceChallenge (RFC 7636 S256)', () => {
  it('gives the RFC 7636 Appendix B example its challenge', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).to.equal(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it("agrees with openid-client's own computation for fresh verifiers", async () => {
    for (let i = 0; i < 20; i++) {
      const verifier = client.randomPKCECodeVerifier();
      expect(pkceChallenge(verifier)).to.equal(await client.calculatePKCECodeChallenge(verifier));
    }
  });
});
