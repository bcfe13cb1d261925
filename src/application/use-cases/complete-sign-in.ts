import { inject, injectable } from 'tsyringe';
import { normalizeClaims } from '../../domain/claims/normalize-claims.js';
import { withProvenAuthentication } from '../../domain/authorization/authentication-need.js';
import { deploymentClaimTypes } from '../../domain/authorization/deployment-claims.js';
import { subjectOf } from '../../domain/claims/principal.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import { DirectorySignInToken, type DirectorySignIn } from '../directory/directory-sign-in.js';
import { validateReturnUrl } from '../../domain/return-url.js';
import { AuditLogToken, type AuditLog, type AuditRequest } from '../ports/audit-log.js';
import { randomToken } from '../random-token.js';
import type { ProviderDefinition } from '../../domain/providers/provider-definition.js';
import type { ProjectTemplateSettings, ProviderKey } from '../../domain/settings/settings.js';
import { equalSecrets } from '../equal-secrets.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import {
  IdentityProvidersToken,
  type CallbackMessage,
  type IdentityProvider,
  type ProviderIdentity,
  type UnsolicitedSignIns,
} from '../ports/identity-provider.js';
import type { IdentityProviders } from '../identity-providers.js';
import { vouchedFor, type OrganizationBinding } from '../../domain/connections/organization-guard.js';
import type { Principal } from '../../domain/claims/principal.js';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { TelemetryToken, type Telemetry } from '../ports/telemetry.js';
import { errorCodeOf } from '../error-code.js';
import { ProviderDefinitionsToken, SettingsToken } from '../settings-token.js';
import { FLOW_LIFETIME_MS, FlowRecords, type Flow } from '../sign-in/flow-records.js';
import { ProviderSessions, providerSessionFields } from '../sign-in/provider-sessions.js';
import type { BrowserSession } from '../sign-in/session-fields.js';
import { EndedProviderSessions } from '../sign-in/ended-provider-sessions.js';
import { SessionIndex } from '../sign-in/session-index.js';
import { SignInRecords } from '../sign-in/sign-in-records.js';
import { recordSignIn } from '../sign-in/sign-in-metrics.js';
import { StepUps, type FlowStepUp } from '../sign-in/step-ups.js';
import { PortalTestResults } from '../portal/test-results.js';
import {
  CandidateConnectionsToken,
  NO_CANDIDATES,
  type CandidateConnections,
} from '../connections/candidate-connections.js';
import { SignInAttempts } from '../connections/sign-in-attempts.js';

export interface CompleteSignInInput {
  /** The provider whose callback path the message arrived at. */
  provider: ProviderKey;
  message: CallbackMessage;
  /** The browser's flow-binding value, if it sent one. */
  binding: string | undefined;
  session: BrowserSession;
  /** The request it arrived in, for the audit trail. */
  request?: AuditRequest;
  /** A coarse name of the device (`Firefox on Linux`), shown on the sessions page. */
  device?: string;
}

const refuse = (code: string, message: string) => new GatehouseError(code, message, { safe: true });

/**
 * The logout key every sign-in through a connection is listed under (beside the
 * provider's own): ending the connection's sessions is ending this key's.
 */
export const CONNECTION_LOGOUT_KEY = 'gatehouse:connection';

const notThisBrowser = () =>
  refuse('idp.state_mismatch', 'The sign-in response does not match the sign-in started in this browser.');
const noFlow = () =>
  refuse(
    'idp.flow_missing',
    'No sign-in matching this response is in progress in this browser: it may have been completed already, or cookies are blocked.',
  );

/**
 * Completes an external sign-in, whatever the protocol:
 * 1. the flow is found by the value the adapter reads from the message, checked against
 *    this browser's binding, then taken (used up) and checked for age and provider, all
 *    *before* the adapter processes any token or assertion (openid-client, for one, fails
 *    open when a check value is undefined, so a message without its flow must never
 *    reach it); the one exception is a message the adapter itself calls unsolicited
 *    (names no request) when it is configured to accept such sign-ins;
 * 2. the adapter turns the message into claims (and what it keeps of the session); the claims are normalized;
 * 3. the sign-in is established: its records are written, the earlier sign-in of this
 *    browser is released, and the session is rotated to a new id pointing to the new
 *    sign-in. Nothing touches the session until every record is written, so a failure at
 *    any step leaves no signed-in state under an id the browser had before.
 */
@injectable()
export class CompleteSignIn {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
    @inject(FlowRecords) private readonly flows: FlowRecords,
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(ProviderSessions) private readonly providerSessions: ProviderSessions,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(LoggerToken) private readonly logger: Logger,
    @inject(SettingsToken) private readonly settings: ProjectTemplateSettings,
    @inject(ProviderDefinitionsToken) private readonly definitions: readonly ProviderDefinition[],
    @inject(AuditLogToken) private readonly audit: AuditLog,
    @inject(SessionIndex) private readonly index: SessionIndex,
    @inject(EndedProviderSessions) private readonly endedAtProvider: EndedProviderSessions,
    @inject(TelemetryToken) private readonly telemetry: Telemetry,
    @inject(StepUps) private readonly stepUps: StepUps,
    @inject(PortalTestResults) private readonly portalTests: PortalTestResults,
    /** A connection's recent attempts (the portal's and the API's); absent where nothing reads them (unit tests). */
    @inject(SignInAttempts) private readonly attempts?: SignInAttempts,
    /** Drafts of activated connections, tested by the setup portal; none in unit tests. */
    @inject(CandidateConnectionsToken)
    private readonly candidates: Pick<CandidateConnections, 'adapterFor'> = NO_CANDIDATES,
    /** Organizations' directories (SCIM); `signIn` absent where directory sync is off. */
    @inject(DirectorySignInToken)
    private readonly directorySync: { signIn?: Pick<DirectorySignIn, 'admit'> } = {},
  ) {
    this.absoluteLifetimeMs = settings.Session.AbsoluteLifetime * 1000;
    this.deploymentClaims = deploymentClaimTypes(settings.Authorization);
  }

  private readonly absoluteLifetimeMs: number;
  /** The claim types only the deployment's own sign-ins may fill (a connection's are dropped: withOrganization). */
  private readonly deploymentClaims: ReadonlySet<string>;

  async execute(input: CompleteSignInInput): Promise<{ returnUrl: string }> {
    const { request, provider: key } = input;
    // Named in every event of a connection's sign-in: which organization's provider it was.
    const organization = this.providers.organizationOf(key);
    const named = organization ? { connection: organization.connection, organization: organization.organization } : {};
    const started = performance.now();
    // What the answer showed of the person, once read: the recent attempts keep its domain and subject's hash.
    let seen: Principal | undefined;
    // The setup portal's test sign-in is shown on its own page, not among the attempts.
    let test = false;
    try {
      const provider = await this.providers.byKey(key);
      if (!provider) throw refuse('idp.flow_wrong_provider', 'This sign-in provider is not registered.');
      const unsolicited = provider.unsolicited?.isUnsolicited(input.message) === true;
      const { identity, returnUrl, flow } =
        unsolicited && provider.unsolicited
          ? await this.completeUnsolicited(provider, provider.unsolicited, input)
          : await this.completeAnswer(provider, input);
      test = flow?.portalTest !== undefined;
      if (flow?.portalTest !== undefined && organization) {
        return await this.completeTest(
          provider,
          organization,
          identity,
          { portal: flow.portalTest, draft: flow.candidate !== undefined },
          returnUrl,
          request,
        );
      }
      if (organization && this.providers.connectionNamed(key)?.activated === false) {
        throw refuse('idp.connection_not_active', 'This organization is still setting up its sign-in here.');
      }
      seen = this.normalizedOf(provider, organization, identity);
      let principal = this.principalOf(organization, identity, seen);
      // The organization's directory: a person it deprovisioned is refused, one it knows gets its groups' roles.
      const directory = this.directorySync.signIn;
      if (organization && directory) principal = await directory.admit(organization, key, principal);
      const stepUp = flow?.stepUp;
      // A step-up's answer is verified before anything changes: refused, the session stays as it was.
      if (stepUp) {
        this.stepUps.verify(
          stepUp,
          flow.createdAt,
          { principal, proof: identity.authentication },
          input.session.fields,
          returnUrl,
        );
        // Atomic: of two answers upgrading one sign-in, one completes (StepUps.claim).
        await this.stepUps.claim(stepUp);
      }
      const { subject, publicId } = await this.establish(
        provider,
        organization,
        principal,
        identity,
        input,
        stepUp,
      ).catch(async (error: unknown) => {
        if (stepUp) await this.stepUps.unclaim(stepUp);
        throw error;
      });
      // A sign-in the provider started is bound to no browser (login CSRF is its accepted
      // risk): a reviewer must be able to tell those apart in the trail; so is a step-up.
      const cause = unsolicited ? 'idp_initiated' : stepUp ? 'step_up' : undefined;
      this.audit.record({
        type: 'signin.succeeded',
        request,
        provider: key,
        ...named,
        subject,
        session: publicId,
        ...(cause ? { cause } : {}),
      });
      recordSignIn(this.telemetry, key, started, { outcome: 'success', ...(cause ? { cause } : {}) });
      if (organization)
        await this.attempts?.record(organization, { outcome: 'succeeded', principal, domains: organization.domains });
      return { returnUrl };
    } catch (error) {
      const code = errorCodeOf(error);
      this.audit.record({ type: 'signin.failed', request, provider: key, ...named, code });
      recordSignIn(this.telemetry, key, started, { outcome: 'failure', code });
      if (organization && !test) {
        await this.attempts?.record(organization, {
          outcome: 'refused',
          code,
          ...(isGatehouseError(error) && error.safe ? { safeMessage: error.message } : {}),
          ...(seen ? { principal: seen } : {}),
          domains: organization.domains,
        });
      }
      throw error;
    }
  }

  /** An answer to a flow this browser started: the flow first, then the provider's refusal, then the message. */
  private async completeAnswer(
    provider: IdentityProvider,
    input: CompleteSignInInput,
  ): Promise<{ identity: ProviderIdentity; returnUrl: string; flow: Flow }> {
    const flow = await this.takeFlow(provider, input);
    const reported = provider.reportedError(input.message);
    if (reported) throw reported;
    // A portal's test of a draft is answered by the draft's own adapter, the live one untouched.
    const adapter = flow.candidate ? await this.candidates.adapterFor(provider.info.key, flow.candidate) : provider;
    if (!adapter || (flow.candidate && !flow.portalTest)) throw noFlow();
    const identity = await adapter.completeCallback(input.message, flow.secrets);
    return { identity, returnUrl: flow.returnUrl, flow };
  }

  /**
   * A sign-in the provider started on its own, which it was configured to allow: no flow to
   * find, every other check by the adapter, and a landing page that is a local URL the
   * message names or else the configured one (never anywhere else).
   */
  private async completeUnsolicited(
    provider: IdentityProvider,
    unsolicited: UnsolicitedSignIns,
    input: CompleteSignInInput,
  ): Promise<{ identity: ProviderIdentity; returnUrl: string; flow?: undefined }> {
    const reported = provider.reportedError(input.message);
    if (reported) throw reported;
    const { identity, requestedReturnUrl } = await unsolicited.complete(input.message);
    return { identity, returnUrl: validateReturnUrl(requestedReturnUrl, unsolicited.defaultReturnUrl) };
  }

  private async takeFlow(provider: IdentityProvider, input: CompleteSignInInput): Promise<Flow> {
    const correlation = provider.correlate(input.message);
    if (input.binding === undefined) throw noFlow();
    if (correlation === undefined) throw notThisBrowser();
    // Read first and compare bindings before taking: an answer replayed in another browser
    // must neither sign it in nor use up the rightful browser's flow.
    const found = await this.flows.find(correlation);
    if (!found) throw noFlow();
    if (!equalSecrets(found.binding, input.binding)) throw notThisBrowser();
    const flow = await this.flows.take(correlation);
    if (!flow) throw noFlow();
    if (this.clock.now() - flow.createdAt > FLOW_LIFETIME_MS) {
      throw refuse('idp.flow_expired', 'This sign-in took too long. Please start again.');
    }
    if (flow.provider !== provider.info.key) {
      throw refuse(
        'idp.flow_wrong_provider',
        'The sign-in response arrived for a different provider than the one the sign-in started with.',
      );
    }
    return flow;
  }

  /**
   * The setup portal's test sign-in: the answer went through every check of the protocol;
   * what arrived and what the organization guard would decide are kept for the portal's
   * result page, and nobody is signed in (no record, no session).
   */
  private async completeTest(
    provider: IdentityProvider,
    organization: OrganizationBinding,
    identity: ProviderIdentity,
    tested: { portal: string; draft: boolean },
    returnUrl: string,
    request: AuditRequest | undefined,
  ): Promise<{ returnUrl: string }> {
    const normalized = this.normalizedOf(provider, organization, identity);
    const result = await this.portalTests.record(tested.portal, organization, normalized, identity.claims, {
      draft: tested.draft,
    });
    this.audit.record({
      type: 'connection.tested',
      request,
      provider: provider.info.key,
      connection: organization.connection,
      organization: organization.organization,
      ...(result.code ? { code: result.code } : {}),
      cause: result.outcome,
    });
    return { returnUrl };
  }

  /** The principal of a checked identity: normalized claims, a connection's vouching, and what the protocol proved of the authentication. */
  private principalOf(
    organization: OrganizationBinding | undefined,
    identity: ProviderIdentity,
    normalized: Principal,
  ): Principal {
    // A connection signs in only its organization's people, and speaks for that organization only.
    const vouched = organization
      ? vouchedFor(organization, normalized, identity.claims, this.deploymentClaims)
      : normalized;
    // What the protocol proved of the authentication, set by Gatehouse only (GATEHOUSE_SET_CLAIMS).
    return identity.authentication ? withProvenAuthentication(vouched, identity.authentication) : vouched;
  }

  /** The claims as the protocol's table, the connection's or the configuration's mappings make them. */
  private normalizedOf(
    provider: IdentityProvider,
    organization: OrganizationBinding | undefined,
    identity: ProviderIdentity,
  ): Principal {
    const transformation = this.settings.Authentication.ClaimsTransformation;
    const builtInMappings = this.definitions.find((d) => d.key === provider.info.kind)?.claimMappings ?? [];
    return normalizeClaims({
      builtInMappings,
      scheme: provider.info.scheme,
      claims: identity.claims,
      extraMappings: organization
        ? this.providers.claimMappingsOf(provider.info.key)
        : transformation.Mappings[provider.info.key],
      removeOriginalClaims: transformation.RemoveOriginalClaims,
    });
  }

  /**
   * Writes the sign-in's records and rotates the session onto it. A step-up keeps the
   * session's start (its absolute lifetime is the session's, not the sign-in's) and marks
   * when it stepped up, and for what (StepUps: no second round for the same policies).
   */
  private async establish(
    provider: IdentityProvider,
    organization: OrganizationBinding | undefined,
    principal: Principal,
    identity: ProviderIdentity,
    input: CompleteSignInInput,
    stepUp: FlowStepUp | undefined,
  ): Promise<{ subject: string | undefined; publicId: string }> {
    const { session, device } = input;
    const signIn = await this.signIns.create(principal, provider.info.key);
    const earlier = { ...session.fields };
    try {
      if (identity.session) await this.providerSessions.save(signIn.ref, identity.session);
      // Signing in again replaces the earlier sign-in of this browser, its provider session included.
      if (typeof earlier.signIn === 'string') await this.releaseEarlier(earlier.signIn, session.handle);
      const now = this.clock.now();
      const publicId = randomToken(12);
      const startedAt = stepUp && typeof earlier.createdAt === 'number' ? earlier.createdAt : now;
      const handle = await session.rotate({
        signIn: signIn.ref,
        publicId,
        ...(device === undefined ? {} : { device }),
        createdAt: startedAt,
        lastSeenAt: now,
        ...providerSessionFields(identity.session),
        ...(stepUp ? { steppedUpAt: now, steppedUpFor: stepUp.policies.join(',') } : {}),
      });
      const subject = subjectOf(principal);
      const endsAt = startedAt + this.absoluteLifetimeMs;
      if (subject !== undefined || identity.logoutKeys || organization) {
        try {
          // Listed under its user until it can live no longer: "sign out everywhere" finds it.
          if (subject !== undefined) await this.index.add(provider.info.key, subject, handle, endsAt);
          // And under the names the provider's logout messages will use (receiveLogout), and
          // a connection's sign-ins under the connection, so removing it can end them.
          for (const logoutKey of [...(identity.logoutKeys ?? []), ...(organization ? [CONNECTION_LOGOUT_KEY] : [])]) {
            await this.index.addByLogoutKey(provider.info.key, logoutKey, handle, endsAt);
          }
          // Listed first, then checked: a provider's logout of its provider session accepted
          // meanwhile either finds it listed or has left its mark (EndedProviderSessions).
          await this.refuseEndedAtProvider(provider.info.key, identity.logoutKeys ?? []);
        } catch (error) {
          // A session no index lists could not be ended with the others: no session at all.
          session.end();
          throw error;
        }
      }
      return { subject, publicId };
    } catch (error) {
      await this.releaseQuietly(signIn.ref);
      throw error;
    }
  }

  private async refuseEndedAtProvider(provider: ProviderKey, logoutKeys: readonly string[]): Promise<void> {
    for (const logoutKey of logoutKeys) {
      if (await this.endedAtProvider.isEnded(provider, logoutKey)) {
        throw refuse(
          'idp.session_ended',
          'The identity provider ended this sign-in before it completed. Please sign in again.',
        );
      }
    }
  }

  /** The browser's earlier sign-in, replaced: its records, and its session's place in its user's index. */
  private async releaseEarlier(ref: string, handle: string | undefined): Promise<void> {
    const earlier = await this.signIns.read(ref);
    const subject = earlier ? subjectOf(earlier.principal) : undefined;
    if (earlier?.provider !== undefined && subject !== undefined && handle !== undefined) {
      await this.index.remove(earlier.provider, subject, handle);
    }
    await this.providerSessions.drop(ref);
    await this.signIns.release(ref);
  }

  /** A sign-in that could not be completed leaves no records behind, as far as the store lets us. */
  private async releaseQuietly(ref: string): Promise<void> {
    const results = await Promise.allSettled([this.signIns.release(ref), this.providerSessions.drop(ref)]);
    if (results.some((result) => result.status === 'rejected')) {
      this.logger.warn({}, 'records of an unfinished sign-in are left to expire');
    }
  }
}
