import type { IDToken } from 'openid-client';
import type { ChallengeOptions, FlowSecrets } from '../../application/ports/identity-provider.js';
import type { ProvenAuthentication } from '../../domain/authorization/authentication-need.js';

/**
 * A step-up's authorization request parameters (OIDC Core 3.1.2.1): `max_age` (the
 * provider must authenticate again when its session is older, and then must send
 * `auth_time`), `prompt=login` when the age is what failed (a provider whose session is
 * young enough would otherwise not ask again, and its `auth_time` would not move), and
 * `acr_values`, space-separated, in preference order.
 */
export function stepUpParameters(stepUp: NonNullable<ChallengeOptions['stepUp']>): Record<string, string> {
  const { need, freshSignIn } = stepUp;
  return {
    ...(need.maxAgeSeconds === undefined ? {} : { max_age: String(need.maxAgeSeconds) }),
    ...(freshSignIn ? { prompt: 'login' } : {}),
    ...(need.contextClasses === undefined ? {} : { acr_values: need.contextClasses.join(' ') }),
  };
}

/** The `max_age` a flow's authorization request carried, from its secrets (a whole number), if any. */
export function maxAgeOf(secrets: FlowSecrets): number | undefined {
  const value = secrets.maxAge;
  return value !== undefined && /^[0-9]{1,9}$/.test(value) ? Number(value) : undefined;
}

/**
 * What the checked ID token says of the authentication (OIDC Core 2): `auth_time`
 * (seconds), `amr` (an array of strings) and `acr` (a string), narrowed field by field;
 * a value of the wrong type counts as absent.
 */
export function provenByIdToken(idClaims: IDToken): ProvenAuthentication {
  const { auth_time: time, amr, acr } = idClaims;
  return {
    time: typeof time === 'number' && Number.isFinite(time) ? time : undefined,
    methods: Array.isArray(amr) ? amr.filter((method): method is string => typeof method === 'string') : [],
    contextClass: typeof acr === 'string' && acr !== '' ? acr : undefined,
  };
}
