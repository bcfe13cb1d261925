import * as client from 'openid-client';
import type { HealthCheck } from '../../application/ports/health-check.js';
import type {
  CallbackEndpoint,
  CallbackMessage,
  ChallengeOptions,
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  LogoutEndpoint,
  ProviderLogout,
  ProviderIdentity,
  ProviderSession,
  ProviderSessionRecord,
  ProviderSigningCertificate,
} from '../../application/ports/identity-provider.js';
import { GatehouseError } from '../../domain/errors.js';
import { LoadedOnce } from '../loaded-once.js';
import { AuthorizationCodeFlow } from '../oauth2/authorization-code-flow.js';
import { correlateState } from '../oauth2/authorization-response.js';
import { readSessionTokens } from '../oauth2/session-tokens.js';
import { failureCause } from '../oauth2/failure-cause.js';
import { timeLimitedFetch } from '../oauth2/time-limited-fetch.js';
import { providerEndpoint } from '../outbound-requests.js';
import type { AdapterContext } from '../provider-record.js';
import { BackchannelLogout, LOGOUT_TOKEN_LIMIT_BYTES } from './backchannel-logout.js';
import { clientAuthentication, providerRefusal } from './client-authentication.js';
import { FrontchannelLogout } from './frontchannel-logout.js';
import { KeySetCertificates } from './key-set-certificates.js';
import { logoutKeysOf } from './logout-keys.js';
import type { OpenIdConnectSettings } from './open-id-connect-settings.js';
import { subjectOfIdToken } from './session-tokens.js';
import { maxAgeOf, provenByIdToken, stepUpParameters } from './step-up-request.js';
import { AUTHENTICATION_CLOCK_SKEW_MS } from '../../domain/authorization/clock-skew.js';

/** The one ID token signature algorithm accepted (`id_token_signed_response_alg`): never `none` or HS*. */
const ID_TOKEN_SIGNING_ALG = 'RS256';

/** ID token claims that userinfo must not overwrite (OIDC Core 2 and 5.3.2). */
const PROTOCOL_CLAIMS = new Set(
  'iss sub aud exp iat nbf nonce azp auth_time acr amr at_hash c_hash sid jti'.split(' '),
);

/** An authorization response is a code, a state and an issuer: a form_post body of a few hundred bytes. */
const FORM_POST_LIMIT_BYTES = 16 * 1024;

/**
 * OpenID Connect sign-in: the shared authorization code flow (PKCE S256, state and nonce)
 * on the provider's discovered configuration, ID tokens checked for issuer, audience,
 * nonce, expiry, *and signature* against the provider's JWKS with one pinned algorithm,
 * then the userinfo endpoint with the subject check. The answer comes back as a redirect
 * (`ResponseMode=query`) or as a form POSTed by the provider's page (`form_post`, which
 * keeps the code out of URLs). Every failure is a GatehouseError (`idp.*`).
 */
export class OidcIdentityProvider implements IdentityProvider {
  readonly callback: CallbackEndpoint;
  readonly healthCheck: HealthCheck;
  readonly #settings: OpenIdConnectSettings;
  readonly #context: AdapterContext;
  readonly #discovery: LoadedOnce<client.Configuration>;
  /** Why the last discovery failed, in a few words (failure-cause.ts): for the start's own check. */
  #discoveryFailure = 'unknown';
  /** What the discovered provider says against the client authentication and PAR settings: decided once. */
  #refusal: { error: GatehouseError | undefined } | undefined;
  readonly #flow: AuthorizationCodeFlow;
  /** The certificates of its signing keys, for the administrators' view of their expiry. */
  readonly #keySet: KeySetCertificates;
  /** Back-Channel Logout 1.0, when `BackchannelLogoutPath` is set. */
  readonly #backchannel: BackchannelLogout | undefined;
  /** Front-Channel Logout 1.0, when `FrontchannelLogoutPath` is set. */
  readonly #frontchannel: FrontchannelLogout | undefined;
  /**
   * Where the provider POSTs its logout tokens server to server (`BackchannelLogoutPath`),
   * and where its logout page points an iframe (`FrontchannelLogoutPath`), when set.
   */
  readonly logoutEndpoints: readonly LogoutEndpoint[];
  // The protocol's first steps are the shared code flow's.
  // OIDC Core 3.1.2.1: login_hint, the address the person typed at discovery; a step-up's
  // max_age, prompt=login and acr_values (step-up-request.ts).
  readonly beginChallenge = async (options: ChallengeOptions = {}): Promise<ChallengeStart> => {
    const start = await this.#flow.begin({
      ...(options.loginHint === undefined ? {} : { login_hint: options.loginHint }),
      ...(options.stepUp ? stepUpParameters(options.stepUp) : {}),
    });
    const maxAge = options.stepUp?.need.maxAgeSeconds;
    // Kept for the callback: openid-client then requires auth_time and checks it against max_age.
    return maxAge === undefined ? start : { ...start, secrets: { ...start.secrets, maxAge: String(maxAge) } };
  };
  readonly supportsStepUp = true;
  readonly correlate = correlateState;
  readonly reportedError = (message: CallbackMessage): GatehouseError | undefined => this.#flow.reportedError(message);

  constructor(
    readonly info: IdentityProviderInfo,
    settings: OpenIdConnectSettings,
    context: AdapterContext,
  ) {
    this.#settings = settings;
    this.#context = context;
    this.callback = {
      messageMethods: settings.ResponseMode === 'form_post' ? ['POST'] : ['GET'],
      maxBodyBytes: FORM_POST_LIMIT_BYTES,
    };
    this.#discovery = new LoadedOnce(() => this.#discover());
    this.#flow = new AuthorizationCodeFlow({
      provider: info.key,
      configuration: () => this.#acceptedConfiguration(),
      redirectUri: new URL(info.callbackPath, context.publicOrigin).href,
      scopes: settings.Scopes,
      openIdConnect: { responseMode: settings.ResponseMode },
      pushAuthorizationRequests: settings.UsePushedAuthorization,
      failureMessage: 'OpenID Connect step failed',
      logger: context.logger,
      clock: context.clock,
    });
    const discovered = () => this.#discovery.get();
    this.#keySet = new KeySetCertificates({
      configuration: discovered,
      clock: context.clock,
      timeoutMs: context.timeoutMs,
      allowInsecureHttp: new URL(settings.Authority).protocol === 'http:',
      ...(context.outbound ? { observe: context.outbound(info.key) } : {}),
      onLoadFailed: (error) =>
        context.logger.warn(
          { provider: info.key, code: error instanceof GatehouseError ? error.code : 'idp.unreachable' },
          "an OpenID provider's signing keys could not be read for their certificates",
        ),
    });
    const endpoints: LogoutEndpoint[] = [];
    if (settings.BackchannelLogoutPath !== '') {
      endpoints.push({
        path: settings.BackchannelLogoutPath,
        messageMethods: ['POST'],
        maxBodyBytes: LOGOUT_TOKEN_LIMIT_BYTES,
        channel: 'back',
      });
      this.#backchannel = new BackchannelLogout({
        configuration: discovered,
        clientId: settings.ClientId,
        algorithm: ID_TOKEN_SIGNING_ALG,
        acceptJwtTyp: settings.BackchannelLogoutAcceptJwtTyp,
        context,
      });
    }
    if (settings.FrontchannelLogoutPath !== '') {
      endpoints.push({
        path: settings.FrontchannelLogoutPath,
        messageMethods: ['GET'],
        maxBodyBytes: 0,
        channel: 'frame',
        // The provider's logout page, which frames it, is on the provider's own origin.
        framedBy: new URL(settings.Authority).origin,
      });
      this.#frontchannel = new FrontchannelLogout(discovered);
    }
    this.logoutEndpoints = endpoints;
    this.healthCheck = {
      name: `identityProvider:${info.key}`,
      // Not required: an identity-provider outage must not take every replica out of
      // rotation; local sign-in and existing sessions keep working without it.
      required: false,
      check: async () => {
        if (this.#discovery.loaded) return 'up';
        try {
          await this.#discovery.get();
          return 'up';
        } catch {
          return 'down';
        }
      },
    };
  }

  async completeCallback(message: CallbackMessage, secrets: FlowSecrets): Promise<ProviderIdentity> {
    const response = await this.#flow.redeem(message, secrets, maxAgeOf(secrets));
    const idClaims = response.claims();
    if (!idClaims) {
      throw this.#flow.refuse(
        new GatehouseError('idp.id_token_invalid', 'The identity provider returned no ID token.'),
      );
    }
    const claims: Record<string, unknown> = { ...idClaims };
    const config = await this.#discovery.get();
    if (config.serverMetadata().userinfo_endpoint !== undefined) {
      // OIDC Core 5.3.2: the userinfo `sub` must be the ID token's.
      const userInfo = await this.#flow.call(
        'userinfo',
        () => client.fetchUserInfo(config, response.access_token, idClaims.sub),
        config.serverMetadata().userinfo_endpoint,
      );
      for (const [name, value] of Object.entries(userInfo)) {
        if (!PROTOCOL_CLAIMS.has(name)) claims[name] = value;
      }
    }
    const authentication = provenByIdToken(idClaims);
    // An auth_time ahead of now would pass every age requirement until that time comes (a
    // step-up's freshness for years): beyond the clock difference allowed, the token is malformed.
    if (
      authentication.time !== undefined &&
      authentication.time * 1000 > this.#context.clock.now() + AUTHENTICATION_CLOCK_SKEW_MS
    ) {
      throw this.#flow.refuse(
        new GatehouseError(
          'idp.id_token_invalid',
          "The identity provider's ID token says the person signed in later than now (its auth_time is ahead of this server by more than the clock difference allowed). Check the clocks of both servers.",
          { safe: true },
        ),
      );
    }
    const identity = { ...this.#flow.identity(claims, response, this.#settings.SaveTokens), authentication };
    // Listed under what either logout channel may name it by, when one is on.
    return this.logoutEndpoints.length > 0 ? { ...identity, logoutKeys: logoutKeysOf(idClaims) } : identity;
  }

  /** The `x5c` certificates of the provider's signing keys (key-set-certificates.ts); none when its keys carry none. */
  signingCertificates(): Promise<readonly ProviderSigningCertificate[]> {
    return this.#keySet.certificates();
  }

  /**
   * OpenID Connect Back-Channel Logout 1.0 (the logout token POSTed at
   * `BackchannelLogoutPath`) or Front-Channel Logout 1.0 (`iss` and `sid` in the query of
   * `FrontchannelLogoutPath`).
   */
  receiveLogout(message: CallbackMessage, endpoint: LogoutEndpoint): Promise<ProviderLogout> {
    const channel = endpoint.channel === 'back' ? this.#backchannel : this.#frontchannel;
    if (!channel || !this.logoutEndpoints.includes(endpoint)) {
      throw new Error(`${endpoint.channel} logout is off for this provider.`);
    }
    return channel.read(message);
  }

  refreshSession(record: ProviderSessionRecord): Promise<ProviderSession> {
    return this.#flow.refresh(record, (answer, kept) => {
      // OIDC Core 12.2: a refreshed ID token must name the same subject (iss and aud are
      // checked by openid-client). Another subject can never be refreshed: a definite refusal.
      const previousSubject = kept.idToken === undefined ? undefined : subjectOfIdToken(kept.idToken);
      const refreshedSubject = answer.claims()?.sub;
      if (refreshedSubject !== undefined && previousSubject !== undefined && refreshedSubject !== previousSubject) {
        throw this.#flow.refuse(
          new GatehouseError('idp.refresh_refused', 'The refreshed ID token names another subject.'),
          'refresh',
        );
      }
    });
  }

  /**
   * One discovery, for a development start: a wrong but well-formed Authority otherwise
   * shows only as a provider check "down" and a failed sign-in later.
   */
  async checkReachable(): Promise<string | undefined> {
    try {
      await this.#discovery.get();
      return undefined;
    } catch {
      const authority = new URL(this.#settings.Authority);
      return (
        `${this.info.displayName} cannot be reached: OpenID discovery at ${authority.host} failed ` +
        `(${this.#discoveryFailure}); check ProjectTemplate:Authentication:Providers:${this.info.key}:Authority ` +
        `(now ${authority.origin}${authority.pathname})`
      );
    }
  }

  /** RP-initiated logout posts the logout form to the provider: the page's form-action must allow its origin. */
  get formActionOrigin(): string | undefined {
    return this.#settings.SignOutAtProvider ? new URL(this.#settings.Authority).origin : undefined;
  }

  async signOutUrl(record: ProviderSessionRecord | undefined): Promise<string | undefined> {
    if (!this.#settings.SignOutAtProvider) return undefined;
    try {
      const config = await this.#discovery.get();
      if (config.serverMetadata().end_session_endpoint === undefined) return undefined;
      // OpenID Connect RP-Initiated Logout 1.0, section 2.
      const parameters: Record<string, string> = {
        post_logout_redirect_uri: new URL('/', this.#context.publicOrigin).href,
      };
      const idToken = readSessionTokens(record)?.idToken;
      if (idToken) parameters['id_token_hint'] = idToken;
      return await this.#flow.call('metadata', async () => client.buildEndSessionUrl(config, parameters).href);
    } catch {
      // Local sign-out must not fail because the provider is down: just skip its logout
      // (the failure was logged where it happened).
      return undefined;
    }
  }

  /**
   * The discovered configuration, once the provider's metadata accepts our client
   * authentication and PAR settings (client-authentication.ts): otherwise every sign-in is
   * refused with the reason, logged once as a warning for the operator.
   */
  async #acceptedConfiguration(): Promise<client.Configuration> {
    const config = await this.#discovery.get();
    if (!this.#refusal) {
      const error = providerRefusal(config.serverMetadata(), this.#settings);
      this.#refusal = { error };
      if (error) {
        this.#context.logger.warn(
          { provider: this.info.key, code: error.code, reason: error.message },
          'OpenID Connect provider refuses this configuration',
        );
      }
    }
    if (this.#refusal.error) throw this.#refusal.error;
    return config;
  }

  async #discover(): Promise<client.Configuration> {
    const settings = this.#settings;
    const { timeoutMs } = this.#context;
    // The startup rules accept http only for a loopback authority outside production.
    const allowInsecureHttp = new URL(settings.Authority).protocol === 'http:';
    // Signature checks of ID tokens from the token endpoint are off by default (OIDC Core
    // 3.1.3.7 allows relying on TLS); we want them, against the provider's JWKS.
    const execute = allowInsecureHttp
      ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
      : [client.enableNonRepudiationChecks];
    const metadata: Partial<client.ClientMetadata> = { id_token_signed_response_alg: ID_TOKEN_SIGNING_ALG };
    const authentication = await clientAuthentication(settings);
    // Until discovery answers, only its own request is known (the well-known document).
    let discovered: client.Configuration | undefined;
    const outbound = this.#context.outbound;
    const fetch = timeLimitedFetch(
      timeoutMs,
      outbound && {
        observe: outbound(this.info.key),
        endpointOf: (url) => providerEndpoint(url, discovered?.serverMetadata(), 'other'),
      },
      this.#context.fetch,
    );
    discovered = await this.#flow.call(
      'metadata',
      async () => {
        try {
          return await client.discovery(new URL(settings.Authority), settings.ClientId, metadata, authentication, {
            timeout: timeoutMs / 1000,
            [client.customFetch]: fetch,
            execute,
          });
        } catch (err) {
          this.#discoveryFailure = failureCause(err);
          throw err;
        }
      },
      settings.Authority,
    );
    return discovered;
  }
}
