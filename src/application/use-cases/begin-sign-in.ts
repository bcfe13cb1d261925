import { inject, injectable } from 'tsyringe';
import { GatehouseError } from '../../domain/errors.js';
import { validateReturnUrl } from '../../domain/return-url.js';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { AuditLogToken, type AuditLog, type AuditRequest } from '../ports/audit-log.js';
import type { IdentityProviders } from '../identity-providers.js';
import { IdentityProvidersToken } from '../ports/identity-provider.js';
import { PendingSignInStoreToken, type SessionStore } from '../ports/session-store.js';
import { SettingsToken } from '../settings-token.js';
import { TelemetryToken, type Telemetry } from '../ports/telemetry.js';
import { errorCodeOf } from '../error-code.js';
import { FlowRecords } from '../sign-in/flow-records.js';
import { SignInAttempts } from '../sign-in/sign-in-attempts.js';
import type { SessionFields } from '../sign-in/session-fields.js';
import { StepUps } from '../sign-in/step-ups.js';
import {
  CandidateConnectionsToken,
  NO_CANDIDATES,
  type CandidateConnections,
} from '../connections/candidate-connections.js';

export interface BeginSignInInput {
  /** The `provider` query parameter: the Scheme of a registered provider. */
  scheme: string | undefined;
  /** The `returnUrl` query parameter, untrusted. */
  returnUrl: string | undefined;
  /** The browser's flow-binding value: the callback must come back to the browser holding it. */
  binding: string;
  /** Who is asking, as far as the network can tell (the client address): pending sign-ins are limited per client. */
  client: string;
  /** True when the caller already counted this attempt against the client's limit (`countAttempt`). */
  counted?: boolean;
  /** The request it arrived in, for the audit trail. */
  request?: AuditRequest;
  /** The address the person typed (discovery), passed on to the provider as a hint when the connection allows it. */
  loginHint?: string;
  /**
   * The `stepUp` query parameter: the policies (comma-separated names) a stronger or more
   * recent sign-in is asked for, of the sign-in `session` holds (docs/step-up.md).
   */
  stepUp?: string;
  /** This browser's session, when it has one: the sign-in a step-up upgrades. */
  session?: SessionFields;
  /**
   * The setup portal's test sign-in through the connection it sets up (activated or not):
   * the portal session's key its result is kept under. Only this connection may be asked.
   */
  portalTest?: {
    portal: string;
    connection: string;
    /** A draft of the activated connection (its keys, secrets sealed), tested instead of the live version. */
    draft?: Readonly<Record<string, unknown>>;
  };
}

/**
 * Starts an external challenge: the flow record (provider, validated return URL, the
 * adapter's secrets, the browser binding) is stored server-side, single-use, before the
 * browser is sent anywhere. Nothing else is stored for an anonymous visitor: no session
 * exists until a sign-in completes. Each client may start a limited number of sign-ins per
 * flow lifetime (SignInAttempts), so that no one can fill the pending-sign-in store.
 */
@injectable()
export class BeginSignIn {
  private readonly attempts: SignInAttempts;

  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
    @inject(PendingSignInStoreToken) pending: SessionStore,
    @inject(FlowRecords) private readonly flows: FlowRecords,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
    @inject(AuditLogToken) audit: AuditLog,
    @inject(TelemetryToken) private readonly telemetry: Telemetry,
    @inject(StepUps) private readonly stepUps: StepUps,
    /** Drafts of activated connections, tested by the setup portal; none in unit tests. */
    @inject(CandidateConnectionsToken)
    private readonly candidates: Pick<CandidateConnections, 'adapterFor'> = NO_CANDIDATES,
  ) {
    this.attempts = new SignInAttempts(pending, settings, audit, telemetry);
  }

  /**
   * Counts an attempt of this client against its limit without starting anything (past
   * it, `auth.too_many_sign_ins`): for a caller that must be refused alike whatever it
   * finds, as discovery is for known and unknown domains. Pass `counted` to `execute` then.
   */
  countAttempt(client: string, request: AuditRequest | undefined): Promise<void> {
    return this.attempts.count(client, request);
  }

  async execute(input: BeginSignInInput): Promise<{ redirectUrl: string }> {
    // Only a registered provider's key is an attribute: the scheme asked for is the visitor's text.
    let provider = 'unknown';
    try {
      const started = await this.challenge(input, (key) => (provider = key));
      this.telemetry.count('gatehouse.authentication.challenges', { provider, outcome: 'redirected' });
      return started;
    } catch (error) {
      this.telemetry.count('gatehouse.authentication.challenges', {
        provider,
        outcome: 'failure',
        'error.type': errorCodeOf(error),
      });
      throw error;
    }
  }

  private async challenge(input: BeginSignInInput, found: (key: string) => void): Promise<{ redirectUrl: string }> {
    if (input.scheme === undefined || input.scheme === '') {
      throw new GatehouseError(
        'auth.unknown_provider',
        'Choose a sign-in provider: the provider parameter is missing.',
        {
          safe: true,
        },
      );
    }
    const draft = input.portalTest?.draft;
    const provider = draft
      ? await this.candidates.adapterFor(input.portalTest?.connection ?? '', draft)
      : await this.providers.byScheme(input.scheme);
    if (!provider) {
      throw new GatehouseError('auth.unknown_provider', 'No sign-in provider is registered under that name.', {
        safe: true,
      });
    }
    found(provider.info.key);
    // A connection still being set up starts no sign-in but its own portal's test; a test
    // starts through the connection it sets up, no other.
    const connection = this.providers.connectionNamed(provider.info.key);
    const test = input.portalTest;
    if (test ? connection?.id !== test.connection.toLowerCase() : connection?.activated === false) {
      throw new GatehouseError('auth.unknown_provider', 'No sign-in provider is registered under that name.', {
        safe: true,
      });
    }
    // Refused before it counts: a step-up the provider cannot give starts nothing.
    const stepUp =
      input.stepUp === undefined ? undefined : await this.stepUps.prepare(input.stepUp, provider, input.session ?? {});
    if (!input.counted) await this.attempts.count(input.client, input.request, provider.info.key);

    const start = await provider.beginChallenge({
      ...(input.loginHint === undefined ? {} : { loginHint: input.loginHint }),
      ...(stepUp ? { stepUp: stepUp.challenge } : {}),
    });
    await this.flows.save(start.correlation, {
      provider: provider.info.key,
      returnUrl: validateReturnUrl(input.returnUrl),
      // The time the challenge is sent: a step-up's answer must prove a sign-in after it.
      createdAt: this.clock.now(),
      binding: input.binding,
      secrets: start.secrets,
      ...(stepUp ? { stepUp: stepUp.flow } : {}),
      ...(test ? { portalTest: test.portal } : {}),
      ...(draft ? { candidate: { ...draft } } : {}),
    });
    return { redirectUrl: start.redirectUrl };
  }
}
