import { ClaimTypes } from '../claims/claim-types.js';
import { claimValues, findClaim, type Principal } from '../claims/principal.js';

/**
 * What a policy asks of the sign-in itself, not of the person (RFC 9470, OIDC Core 3.1.2.1):
 * - `maxAgeSeconds`: the sign-in is at most this old (OpenID `max_age`);
 * - `methods`: the sign-in used at least one of these methods (`amr` values, RFC 8176: `mfa`, `hwk`, `otp`);
 * - `contextClasses`: the sign-in's context class (`acr`) is one of these.
 * An absent field asks nothing. A present list is never empty (an empty one would be met by nobody).
 */
export interface AuthenticationNeed {
  readonly maxAgeSeconds?: number;
  readonly methods?: readonly string[];
  readonly contextClasses?: readonly string[];
}

/** What the principal's sign-in proved, as Gatehouse recorded it (`application:auth_time`, `amr`, `acr`). */
export interface ProvenAuthentication {
  /** When the person last authenticated at the provider, in seconds since the epoch; undefined when the provider did not say. */
  time: number | undefined;
  methods: readonly string[];
  contextClass: string | undefined;
}

/** Which part of a need a sign-in fails. */
export type UnmetAuthentication = 'max_age' | 'methods' | 'context_class';

/** The proof a principal carries; nothing proved when Gatehouse recorded none (a session older than the claims). */
export function provenAuthentication(principal: Principal): ProvenAuthentication {
  const time = Number(findClaim(principal, ClaimTypes.AuthTime));
  return {
    time: Number.isFinite(time) ? time : undefined,
    methods: claimValues(principal, ClaimTypes.AuthenticationMethods),
    contextClass: findClaim(principal, ClaimTypes.AuthenticationContextClass),
  };
}

/**
 * `principal` with the claims that say what its sign-in proved (`application:auth_time` in
 * whole seconds, one `application:amr` per method, `application:acr`), replacing any it
 * had: only Gatehouse sets them (GATEHOUSE_SET_CLAIMS), from the protocol's own fields.
 */
export function withProvenAuthentication(principal: Principal, proof: ProvenAuthentication): Principal {
  const issuer = principal.scheme;
  const kept = principal.claims.filter((claim) => !PROVEN_AUTHENTICATION_CLAIMS.has(claim.type));
  const added = [
    ...(proof.time === undefined ? [] : [{ type: ClaimTypes.AuthTime, value: String(Math.floor(proof.time)), issuer }]),
    ...[...new Set(proof.methods)].map((value) => ({ type: ClaimTypes.AuthenticationMethods, value, issuer })),
    ...(proof.contextClass === undefined
      ? []
      : [{ type: ClaimTypes.AuthenticationContextClass, value: proof.contextClass, issuer }]),
  ];
  return { scheme: principal.scheme, claims: [...kept, ...added] };
}

const PROVEN_AUTHENTICATION_CLAIMS: ReadonlySet<string> = new Set([
  ClaimTypes.AuthTime,
  ClaimTypes.AuthenticationMethods,
  ClaimTypes.AuthenticationContextClass,
]);

/**
 * The parts of `need` that `proof` fails at `nowMs` (milliseconds since the epoch), in a
 * fixed order; empty when it meets it. No recorded time fails any age, and a time in the
 * future is taken as now (clocks differ), never as "younger than now".
 */
export function unmetAuthentication(
  need: AuthenticationNeed,
  proof: ProvenAuthentication,
  nowMs: number,
): UnmetAuthentication[] {
  const unmet: UnmetAuthentication[] = [];
  if (need.maxAgeSeconds !== undefined) {
    const ageSeconds = proof.time === undefined ? Infinity : Math.max(0, nowMs / 1000 - proof.time);
    if (!(ageSeconds <= need.maxAgeSeconds)) unmet.push('max_age');
  }
  if (need.methods !== undefined && !need.methods.some((method) => proof.methods.includes(method))) {
    unmet.push('methods');
  }
  if (
    need.contextClasses !== undefined &&
    (proof.contextClass === undefined || !need.contextClasses.includes(proof.contextClass))
  ) {
    unmet.push('context_class');
  }
  return unmet;
}

/**
 * One need that asks everything `needs` ask: the shortest age, and for each list the values
 * every list names (an `amr` value in both lists meets both). An intersection that comes
 * out empty cannot be met by any sign-in: `satisfiable` says so, and such a need is never
 * sent to a provider.
 */
export function mergeNeeds(needs: readonly AuthenticationNeed[]): AuthenticationNeed {
  let maxAgeSeconds: number | undefined;
  let methods: readonly string[] | undefined;
  let contextClasses: readonly string[] | undefined;
  for (const need of needs) {
    if (need.maxAgeSeconds !== undefined) maxAgeSeconds = Math.min(maxAgeSeconds ?? Infinity, need.maxAgeSeconds);
    methods = intersect(methods, need.methods);
    contextClasses = intersect(contextClasses, need.contextClasses);
  }
  return {
    ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
    ...(methods === undefined ? {} : { methods }),
    ...(contextClasses === undefined ? {} : { contextClasses }),
  };
}

/** False when a list of the need is empty: nobody's sign-in can meet it. */
export function satisfiable(need: AuthenticationNeed): boolean {
  return need.methods?.length !== 0 && need.contextClasses?.length !== 0;
}

/** The need in words, one phrase per part ("a sign-in within the last 5 minutes"), for pages, problem details and logs. */
export function describeNeed(need: AuthenticationNeed, parts?: readonly UnmetAuthentication[]): string[] {
  const wanted = (part: UnmetAuthentication) => parts === undefined || parts.includes(part);
  const phrases: string[] = [];
  if (need.maxAgeSeconds !== undefined && wanted('max_age')) {
    phrases.push(`a sign-in within the last ${duration(need.maxAgeSeconds)}`);
  }
  if (need.methods !== undefined && wanted('methods')) {
    phrases.push(`a sign-in with ${oneOf(need.methods.map(methodName))}`);
  }
  if (need.contextClasses !== undefined && wanted('context_class')) {
    phrases.push(`a sign-in at the assurance level ${oneOf(need.contextClasses)}`);
  }
  return phrases;
}

/** Well-known `amr` values (RFC 8176) in words; others as they are. */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  mfa: 'multi-factor authentication (mfa)',
  otp: 'a one-time code (otp)',
  hwk: 'a hardware key (hwk)',
  swk: 'a software key (swk)',
  pwd: 'a password (pwd)',
  pin: 'a PIN (pin)',
  fpt: 'a fingerprint (fpt)',
  face: 'face recognition (face)',
  sms: 'a code by text message (sms)',
};

function methodName(method: string): string {
  return METHOD_NAMES[method] ?? method;
}

function oneOf(values: readonly string[]): string {
  if (values.length <= 1) return values.join('');
  return `${values.slice(0, -1).join(', ')} or ${values.at(-1) ?? ''}`;
}

function duration(seconds: number): string {
  const unit = (value: number, name: string) => `${value} ${name}${value === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

function intersect(
  current: readonly string[] | undefined,
  next: readonly string[] | undefined,
): readonly string[] | undefined {
  if (next === undefined) return current;
  if (current === undefined) return [...new Set(next)];
  return current.filter((value) => next.includes(value));
}
