import { inject, injectable } from 'tsyringe';
import {
  describeNeed,
  mergeNeeds,
  provenAuthentication,
  satisfiable,
  unmetAuthentication,
  type AuthenticationNeed,
  type ProvenAuthentication,
} from '../../domain/authorization/authentication-need.js';
import { AUTHENTICATION_CLOCK_SKEW_MS } from '../../domain/authorization/clock-skew.js';
import type { PolicyRegistry } from '../../domain/authorization/policies.js';
import { subjectOf, type Principal } from '../../domain/claims/principal.js';
import { GatehouseError } from '../../domain/errors.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import type { ChallengeOptions, IdentityProvider } from '../ports/identity-provider.js';
import { ReplayRecordStoreToken, type SessionStore } from '../ports/session-store.js';
import { PoliciesToken } from '../settings-token.js';
import type { SessionFields } from './session-fields.js';
import { SignInRecords } from './sign-in-records.js';

/** What a step-up flow records, to verify its answer: the policies, their merged need, and the sign-in it upgrades. */
export interface FlowStepUp {
  policies: string[];
  need: AuthenticationNeed;
  /** The reference of the sign-in being upgraded: the answer must find the browser's session still on it. */
  signIn: string;
  /** Its subject: the step-up must sign the same person in. */
  subject: string;
}

/**
 * The clock difference allowed between the provider and this server when comparing the
 * provider's `auth_time` / AuthnInstant with the time the challenge was sent (the SAML
 * checks allow the same).
 */
export const STEP_UP_CLOCK_SKEW_MS = AUTHENTICATION_CLOCK_SKEW_MS;

/**
 * A session asked to step up again for the same policies this soon after a step-up is in
 * a loop (a provider that answers with what passed the callback's checks but not the
 * page's, a need no sign-in keeps long enough): refused instead of sent round again.
 */
export const STEP_UP_REPEAT_WINDOW_MS = 30 * 1000;

/**
 * How long a step-up's claim on the sign-in it upgraded is kept: longer than any flow can
 * wait for its answer (FLOW_LIFETIME_MS, 15 minutes, and the minute its record outlives it).
 */
const STEP_UP_CLAIM_MS = 17 * 60 * 1000;

/** The claim's key: the sign-in's reference, which is never given to another sign-in. */
function stepUpClaimKey(signIn: string): string {
  return `step-up-completed:${signIn}`;
}

const unavailable = (message: string) => new GatehouseError('auth.step_up_unavailable', message, { safe: true });
const refuse = (code: string, message: string, retryUrl?: string) =>
  new GatehouseError(code, message, retryUrl === undefined ? { safe: true } : { safe: true, retryUrl });

/**
 * Step-up authentication (docs/step-up.md, RFC 9470): the start of one (which policies,
 * what to ask the provider, whether it can be asked at all), and the verification of its
 * answer, which is never trusted because it was asked for.
 */
@injectable()
export class StepUps {
  constructor(
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(PoliciesToken) private readonly policies: PolicyRegistry,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(ReplayRecordStoreToken) private readonly claims: SessionStore,
  ) {}

  /**
   * A step-up of this browser's sign-in for `requested` (policy names, comma-separated)
   * at `provider`: refused (`auth.step_up_unavailable`, said in words) when there is no
   * sign-in to upgrade, when it was made at another provider, when the provider cannot be
   * asked, or when this session stepped up for the same policies moments ago.
   */
  async prepare(
    requested: string,
    provider: IdentityProvider,
    session: SessionFields,
  ): Promise<{ flow: FlowStepUp; challenge: NonNullable<ChallengeOptions['stepUp']> }> {
    const names = [...new Set(requested.split(',').map((name) => name.trim()))].filter((name) => name !== '');
    const need = this.needOf(names);
    const signIn = await this.signIns.read(session.signIn);
    const subject = signIn ? subjectOf(signIn.principal) : undefined;
    if (!signIn || subject === undefined) throw unavailable('Sign in first: there is no sign-in here to strengthen.');
    if (signIn.provider !== provider.info.key) {
      throw unavailable(
        'You signed in with another provider: a stronger or more recent sign-in can only be asked of the one you used.',
      );
    }
    const now = this.clock.now();
    const unmet = unmetAuthentication(need, provenAuthentication(signIn.principal), now);
    const missing = describeNeed(need, unmet.length > 0 ? unmet : undefined).join(' and ');
    if (provider.supportsStepUp !== true) {
      throw unavailable(
        `This page needs ${missing}, and ${provider.info.displayName} cannot be asked for one, so it cannot be reached with this sign-in.`,
      );
    }
    if (
      typeof session.steppedUpAt === 'number' &&
      now - session.steppedUpAt < STEP_UP_REPEAT_WINDOW_MS &&
      session.steppedUpFor === names.join(',')
    ) {
      throw unavailable(`You signed in again a moment ago and this page still needs ${missing}.`);
    }
    return {
      flow: { policies: names, need, signIn: signIn.ref, subject },
      // OIDC Core 3.1.2.1: a provider reuses a session young enough for max_age, with the
      // methods it was made with. When the age or the method is what failed, it is asked to
      // authenticate again (prompt=login): OpenID has no request parameter for an amr value.
      challenge: { need, freshSignIn: !unmet.every((part) => part === 'context_class') || unmet.length === 0 },
    };
  }

  /**
   * The answer to a step-up, before anything about the session changes: the same person
   * (`idp.subject_changed`), signed in after the challenge was sent (`idp.step_up_stale`:
   * a provider that ignored max_age or ForceAuthn), and meeting the need now
   * (`idp.step_up_not_met`: a lower acr, no second factor). The browser's session must
   * still be on the sign-in being upgraded (`idp.step_up_session_ended`). A refusal that
   * another attempt can mend carries the URL that starts the same step-up again, back to
   * `returnUrl`.
   */
  verify(
    flow: FlowStepUp,
    challengedAt: number,
    answer: { principal: Principal; proof: ProvenAuthentication | undefined },
    session: SessionFields,
    returnUrl = '/',
  ): void {
    const again = stepUpChallengeUrl(answer.principal.scheme, flow.policies, returnUrl);
    if (session.signIn !== flow.signIn) {
      throw refuse(
        'idp.step_up_session_ended',
        'The sign-in this was meant to strengthen has ended in this browser. Please sign in again.',
      );
    }
    if (subjectOf(answer.principal) !== flow.subject) {
      throw refuse(
        'idp.subject_changed',
        'Someone else signed in at the identity provider than the person signed in here, so nothing was changed. Sign out first to switch users.',
        again,
      );
    }
    const proof = answer.proof;
    if (proof?.time === undefined || proof.time * 1000 < challengedAt - STEP_UP_CLOCK_SKEW_MS) {
      throw refuse(
        'idp.step_up_stale',
        'The identity provider did not sign you in again: it answered with an earlier sign-in, so this page stays closed.',
        again,
      );
    }
    const unmet = unmetAuthentication(flow.need, proof, this.clock.now());
    if (unmet.length > 0) {
      throw refuse(
        unmet.includes('max_age') ? 'idp.step_up_stale' : 'idp.step_up_not_met',
        `The identity provider's sign-in does not meet what this page needs: ${describeNeed(flow.need, unmet).join(' and ')}.`,
        again,
      );
    }
  }

  /**
   * Completes the step-up of its sign-in, in one atomic step across every instance: of two
   * verified answers upgrading the same sign-in (two tabs, a callback sent twice at once),
   * the first claims it and the other is refused (`idp.step_up_session_ended`), so one
   * step-up leaves exactly one session. The claim is a replay record (never evicted early)
   * kept as long as any flow naming that sign-in can still be answered.
   */
  async claim(flow: FlowStepUp): Promise<void> {
    if (!(await this.claims.create(stepUpClaimKey(flow.signIn), {}, STEP_UP_CLAIM_MS))) {
      throw refuse(
        'idp.step_up_session_ended',
        'This sign-in was strengthened already, by another answer: this one changed nothing. Use the page you were taken to.',
      );
    }
  }

  /** Gives the claim back when the step-up could not be completed after all: the session is as it was, and may try again. */
  async unclaim(flow: FlowStepUp): Promise<void> {
    await this.claims.destroy(stepUpClaimKey(flow.signIn)).catch(() => undefined);
  }

  /** The merged authentication need of `names`; an unknown name, or policies that ask nothing of the sign-in (or what none can meet), are refused. */
  private needOf(names: readonly string[]): AuthenticationNeed {
    const needs: AuthenticationNeed[] = [];
    for (const name of names) {
      const policy = this.policies.get(name);
      if (!policy) throw refuse('auth.unknown_policy', 'The stepUp parameter names no authorization policy.');
      for (const requirement of policy.requirements) {
        if (requirement.kind === 'authentication') needs.push(requirement.need);
      }
    }
    const need = mergeNeeds(needs);
    if (needs.length === 0 || !satisfiable(need)) {
      throw unavailable(
        'No sign-in can be asked for here: the policies named ask nothing of the sign-in that can be met.',
      );
    }
    return need;
  }
}

/** Where a browser starts a step-up of its sign-in at `scheme` for `policies`, coming back to `returnUrl` (a local URL). */
export function stepUpChallengeUrl(scheme: string, policies: readonly string[], returnUrl: string): string {
  const query = new URLSearchParams({ provider: scheme, stepUp: policies.join(','), returnUrl });
  return `/External/Challenge?${query.toString()}`;
}

/** A stored flow's step-up, narrowed field by field (the store is outside the process); undefined when absent or malformed. */
export function readFlowStepUp(value: unknown): FlowStepUp | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { policies, need, signIn, subject } = value as Record<string, unknown>;
  if (!isStrings(policies) || typeof signIn !== 'string' || typeof subject !== 'string') return undefined;
  if (typeof need !== 'object' || need === null) return undefined;
  const { maxAgeSeconds, methods, contextClasses } = need as Record<string, unknown>;
  if (maxAgeSeconds !== undefined && typeof maxAgeSeconds !== 'number') return undefined;
  if ((methods !== undefined && !isStrings(methods)) || (contextClasses !== undefined && !isStrings(contextClasses)))
    return undefined;
  return {
    policies,
    signIn,
    subject,
    need: {
      ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
      ...(methods === undefined ? {} : { methods }),
      ...(contextClasses === undefined ? {} : { contextClasses }),
    },
  };
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
