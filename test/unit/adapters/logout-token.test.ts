import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, type JWK } from 'jose';
import { verifyLogoutToken } from '../../../src/adapters/oidc/logout-token.js';
import { isGatehouseError } from '../../../src/domain/errors.js';
import { BACKCHANNEL_EVENT, signLogoutToken } from '../../support/logout-tokens.js';

const ISSUER = 'https://op.example';
const CLIENT_ID = 'gatehouse-test';

describe('verifyLogoutToken (OpenID Connect Back-Channel Logout 1.0, 2.6)', () => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = { ...pair.privateKey.export({ format: 'jwk' }), kid: 'k1' };
  const keys = createLocalJWKSet({ keys: [{ ...pair.publicKey.export({ format: 'jwk' }), kid: 'k1' } as JWK] });
  const verify = (token: string, acceptJwtTyp = false) =>
    verifyLogoutToken(token, keys, {
      issuer: ISSUER,
      clientId: CLIENT_ID,
      algorithm: 'RS256',
      acceptJwtTyp,
      now: Date.now(),
    });
  const token = (claims: Record<string, unknown>, header?: Record<string, unknown>) =>
    signLogoutToken(key, { issuer: ISSUER, audience: CLIENT_ID, claims, ...(header ? { header } : {}) });
  const codeOf = async (pending: Promise<unknown>) => {
    try {
      await pending;
      return 'accepted';
    } catch (error) {
      return isGatehouseError(error) ? error.code : String(error);
    }
  };

  it('reads sub, sid and jti, and says how long the token stays acceptable (exp plus the skew)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const verified = await verify(await token({ sub: 'u', sid: 's', jti: 'j', exp: now + 100 }));
    expect(verified).to.deep.equal({ sub: 'u', sid: 's', jti: 'j', acceptableUntil: (now + 160) * 1000 });
  });

  const typs: Array<[string | undefined, boolean, string]> = [
    [undefined, false, 'accepted'],
    ['logout+jwt', false, 'accepted'],
    ['application/logout+jwt', false, 'accepted'],
    ['Logout+JWT', false, 'accepted'],
    ['JWT', false, 'idp.logout_token_invalid'],
    ['JWT', true, 'accepted'],
    ['application/jwt', true, 'accepted'],
    ['secevent+jwt', true, 'idp.logout_token_invalid'],
  ];
  for (const [typ, acceptJwtTyp, expected] of typs) {
    it(`typ ${typ ?? '(absent)'}${acceptJwtTyp ? ' with the JWT switch' : ''}: ${expected}`, async () => {
      expect(await codeOf(verify(await token({ sub: 'u' }, { typ }), acceptJwtTyp))).to.equal(expected);
    });
  }

  // Claims that depend on the time are made when the test runs, not when the file loads:
  // a long suite on a busy machine can take longer than the skew between the two.
  const shapes: Array<[string, Record<string, unknown> | (() => Record<string, unknown>), string]> = [
    [
      'the event member is not an object',
      { sub: 'u', events: { [BACKCHANNEL_EVENT]: 'yes' } },
      'idp.logout_token_invalid',
    ],
    ['the event member is an array', { sub: 'u', events: { [BACKCHANNEL_EVENT]: [] } }, 'idp.logout_token_invalid'],
    ['events is null', { sub: 'u', events: null }, 'idp.logout_token_invalid'],
    ['sub is a number', { sub: 7 }, 'idp.logout_token_invalid'],
    ['sid is empty', { sid: '' }, 'idp.logout_token_invalid'],
    ['iat is a string', { sub: 'u', iat: '1' }, 'idp.logout_token_invalid'],
    ['an audience list holding the client', { sub: 'u', aud: ['other', CLIENT_ID] }, 'accepted'],
    [
      'exp a few seconds past (within the skew)',
      () => ({ sub: 'u', exp: Math.floor(Date.now() / 1000) - 10 }),
      'accepted',
    ],
  ];
  for (const [name, claims, expected] of shapes) {
    it(`${name}: ${expected}`, async () => {
      expect(await codeOf(verify(await token(typeof claims === 'function' ? claims() : claims)))).to.equal(expected);
    });
  }
});
