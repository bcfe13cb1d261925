import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { GatehouseError } from '../../domain/errors.js';

/** OpenID Connect Back-Channel Logout 1.0, 2.4: the member of `events` that makes a JWT a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** How far the provider's clock may be from ours, either way. */
export const LOGOUT_TOKEN_CLOCK_SKEW_S = 60;
/**
 * A token is refused this long after its `iat`, whatever its `exp` says (2.6: a relying
 * party "MAY reject Logout Tokens that have an iat far in the past"): a provider delivers
 * its logout at once, and the token's replay record then lives a few minutes, not as long
 * as a provider chose to make its tokens valid (hours of records per token let one
 * organization's provider fill the store).
 */
export const LOGOUT_TOKEN_MAX_AGE_S = 5 * 60;
/** The longest validity (`exp`) a token may claim; its use is remembered only until the age bound past its `iat`. */
const LONGEST_ACCEPTANCE_S = 24 * 60 * 60;

export interface LogoutTokenExpectations {
  /** The provider's issuer identifier, from its discovered metadata. */
  issuer: string;
  /** Our client ID: the one audience. */
  clientId: string;
  /** The ID token's algorithm: a logout token is signed like an ID token (2.4), never `none`. */
  algorithm: string;
  /** Also accept `typ: JWT` (ProjectTemplate:...:BackchannelLogoutAcceptJwtTyp). */
  acceptJwtTyp: boolean;
  /** Milliseconds since the epoch. */
  now: number;
}

/** What a verified logout token says: whom it logs out, and its identifier with how long it stays acceptable. */
export interface VerifiedLogoutToken {
  sub?: string;
  sid?: string;
  jti: string;
  /** Milliseconds since the epoch: after this the token is refused anyway, so its use need not be remembered longer. */
  acceptableUntil: number;
}

/** Thrown by a key lookup that could not reach the provider's keys: an outage, not a bad token. */
export class KeySetUnavailable extends Error {
  constructor(readonly code: 'idp.unreachable' | 'idp.timeout') {
    super('The identity provider keys could not be fetched.');
  }
}

const invalid = (why: string) =>
  new GatehouseError('idp.logout_token_invalid', `The logout token was refused: ${why}.`, { safe: true });
const expired = (why: string) =>
  new GatehouseError('idp.logout_token_expired', `The logout token was refused: ${why}.`, { safe: true });

/**
 * Validates a logout token as OpenID Connect Back-Channel Logout 1.0, 2.6 asks: the
 * signature with the provider's keys and the ID token's algorithm (jose refuses any other,
 * `none` included, before looking for a key), `iss`, `aud`, `iat`, `exp` (or, without
 * one, an age bound), `typ`, the event, `sub` or `sid`, no `nonce` (2.4: so that an ID
 * token can never pass for a logout token), and a `jti` to use it once by. Refusals are
 * `idp.logout_token_invalid` or `idp.logout_token_expired` with a reason safe to show.
 */
export async function verifyLogoutToken(
  token: string,
  keys: JWTVerifyGetKey,
  expected: LogoutTokenExpectations,
): Promise<VerifiedLogoutToken> {
  let payload: JWTPayload;
  let typ: string | undefined;
  try {
    const verified = await jwtVerify(token, keys, {
      issuer: expected.issuer,
      audience: expected.clientId,
      algorithms: [expected.algorithm],
      clockTolerance: LOGOUT_TOKEN_CLOCK_SKEW_S,
      currentDate: new Date(expected.now),
    });
    payload = verified.payload;
    typ = verified.protectedHeader.typ;
  } catch (error) {
    throw translate(error);
  }
  checkType(typ, expected.acceptJwtTyp);
  const acceptableUntil = checkTimes(payload, expected.now);
  const events = payload.events;
  if (typeof events !== 'object' || events === null || Array.isArray(events)) {
    throw invalid('"events" is not a JSON object');
  }
  const event: unknown = (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT];
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw invalid('"events" holds no back-channel logout event');
  }
  if ('nonce' in payload) throw invalid('it carries a "nonce"');
  const sub = optionalString(payload.sub, 'sub');
  const sid = optionalString(payload.sid, 'sid');
  if (sub === undefined && sid === undefined) throw invalid('it names neither "sub" nor "sid"');
  const jti = optionalString(payload.jti, 'jti');
  if (jti === undefined) throw invalid('it has no "jti"');
  return { ...(sub === undefined ? {} : { sub }), ...(sid === undefined ? {} : { sid }), jti, acceptableUntil };
}

/** 2.6: `typ` absent or `logout+jwt` (RFC 7515 4.1.9: compared without case, `application/` optional). */
function checkType(typ: string | undefined, acceptJwtTyp: boolean): void {
  if (typ === undefined) return;
  const type = typ.toLowerCase().replace(/^application\//, '');
  if (type === 'logout+jwt' || (acceptJwtTyp && type === 'jwt')) return;
  throw invalid('its "typ" header is not logout+jwt');
}

/**
 * `iat` required, not in the future beyond the clock skew, and at most the age bound in
 * the past; `exp` checked by jose when present. Returns the end of acceptance: the earlier
 * of `exp` and the age bound (with the skew), so no replay record outlives `iat` by more
 * than a few minutes.
 */
function checkTimes(payload: JWTPayload, now: number): number {
  const nowS = now / 1000;
  if (typeof payload.iat !== 'number') throw invalid('it has no "iat"');
  if (payload.iat > nowS + LOGOUT_TOKEN_CLOCK_SKEW_S) throw invalid('its "iat" is in the future');
  const ageBoundS = payload.iat + LOGOUT_TOKEN_MAX_AGE_S + LOGOUT_TOKEN_CLOCK_SKEW_S;
  if (ageBoundS <= nowS) throw expired('its "iat" is too far in the past');
  const untilS =
    typeof payload.exp === 'number' ? Math.min(payload.exp + LOGOUT_TOKEN_CLOCK_SKEW_S, ageBoundS) : ageBoundS;
  if (untilS <= nowS) throw expired('it is too old');
  // A provider that signs tokens valid for days is broken or hostile: refused, as before the age bound.
  if (typeof payload.exp === 'number' && payload.exp > nowS + LONGEST_ACCEPTANCE_S) {
    throw invalid('it stays valid for more than a day');
  }
  return untilS * 1000;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw invalid(`"${name}" is not a non-empty string`);
  return value;
}

/** jose's refusal as ours; the reason names the check, never a value of the token. */
function translate(error: unknown): Error {
  if (error instanceof KeySetUnavailable) {
    return new GatehouseError(error.code, 'The identity provider keys could not be fetched.', { safe: true });
  }
  if (error instanceof errors.JWTExpired) return expired('its "exp" has passed');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = /^[a-z]{2,8}$/.test(error.claim) ? error.claim : 'a claim';
    return invalid(`"${claim}" is not acceptable`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return invalid('its algorithm is not the one ID tokens use');
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalid('its signature does not verify');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return invalid('no key of the provider matches its signature');
  }
  return invalid('it is not a well-formed signed JWT');
}
