import type { AuthenticationNeed, ProvenAuthentication } from '../../domain/authorization/authentication-need.js';
import type { GatehouseError } from '../../domain/errors.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { HealthCheck } from './health-check.js';

/** What a provider says of itself: enough to list it on the login page and route its callback. */
export interface IdentityProviderInfo {
  /** What its records carry: the section's key (`OpenIdConnect`), or a connection's name. */
  key: ProviderKey;
  /** Its provider record's key (`OpenIdConnect`, `Saml2` ...): the built-in claim mappings, the protocol. */
  kind: ProviderKey;
  /** The scheme name `/External/Challenge?provider=` takes. */
  scheme: string;
  displayName: string;
  /** Where the provider's protocol messages arrive (owned by the authentication middleware, not the endpoint table). */
  callbackPath: string;
}

/** How protocol messages reach the callback path. */
export interface CallbackEndpoint {
  /**
   * The methods a protocol message arrives with: GET for an OAuth 2.0 redirect, POST for
   * a SAML Assertion Consumer Service or the OAuth `form_post` response mode.
   */
  messageMethods: readonly ('GET' | 'POST')[];
  /** The largest POSTed message accepted, in bytes; a larger one is refused (413) before it is read. */
  maxBodyBytes: number;
}

/** A protocol message as it arrived at the callback path, untouched. */
export interface CallbackMessage {
  method: 'GET' | 'POST';
  /** The callback URL rebuilt on the configured public origin, with the query as the browser sent it. */
  url: URL;
  /** The form fields of a POST (`application/x-www-form-urlencoded`); empty for GET. */
  form: URLSearchParams;
}

/** A document served on GET at the callback path, for protocols that publish one (SAML service-provider metadata). */
export interface CallbackDocument {
  contentType: string;
  body: string;
}

/** Per-flow values the adapter needs back at the callback (nonce, PKCE verifier, request ID ...). Kept server-side, single-use. */
export type FlowSecrets = Readonly<Record<string, string>>;

export interface ChallengeOptions {
  loginHint?: string;
  /**
   * A step-up (docs/step-up.md): the sign-in must meet `need`, and be a fresh one when
   * `freshSignIn` (the age is what failed: OpenID `prompt=login`, SAML `ForceAuthn`).
   */
  stepUp?: { need: AuthenticationNeed; freshSignIn: boolean };
}

export interface ChallengeStart {
  /** Where to send the browser. */
  redirectUrl: string;
  /**
   * The value the provider echoes back with its answer (OAuth `state`, SAML `RelayState`):
   * it finds the flow record. Unguessable: it is the only handle on a pending flow.
   */
  correlation: string;
  secrets: FlowSecrets;
}

/**
 * What an adapter keeps of one sign-in (OAuth tokens; a SAML NameID and SessionIndex),
 * server-side and never sent to the browser: its own record, plain JSON. The application
 * stores it beside the sign-in and hands it back to the same adapter (refresh, sign-out)
 * without reading it.
 */
export type ProviderSessionRecord = Readonly<Record<string, unknown>>;

/** A provider session to keep, and when the adapter wants it refreshed. */
export interface ProviderSession {
  record: ProviderSessionRecord;
  /** When to call `refreshSession` (milliseconds since the epoch); absent: never. */
  refreshAt?: number;
}

/** A certificate an identity provider signs with, as its published keys name it. */
export interface ProviderSigningCertificate {
  /** The certificate's subject, one line (`CN=idp.example.com, O=Example`). */
  subject: string;
  /** The end of its validity, milliseconds since the epoch. */
  notAfter: number;
}

/** What a successful callback yields: the provider's raw claims (normalized by the caller) and what to keep, if anything. */
export interface ProviderIdentity {
  claims: Record<string, unknown>;
  /**
   * What the protocol itself proved of the authentication (ID token `auth_time`, `amr`,
   * `acr`; the SAML AuthnStatement), read from the checked message, never from an attribute
   * the provider could set freely; absent when the protocol says nothing of it.
   */
  authentication?: ProvenAuthentication;
  session?: ProviderSession;
  /**
   * The names the provider's own logout messages will give this sign-in by (OpenID
   * Connect: the issuer with the subject, and with the session ID; SAML: the identity
   * provider and NameID, and with the SessionIndex): opaque to the application, which lists
   * the session under each so that `receiveLogout` can find it, and refuses the sign-in when
   * one of them names a provider session a logout already ended (`endedSessions`).
   */
  logoutKeys?: readonly string[];
}

/** What an unsolicited message yields once every check passed: the identity, and where the message asks to land. */
export interface UnsolicitedIdentity {
  identity: ProviderIdentity;
  /** The return URL the message names (SAML `RelayState`), untrusted: the caller keeps it only if it is local. */
  requestedReturnUrl: string | undefined;
}

/**
 * Sign-ins the provider starts on its own (SAML IdP-initiated sign-in from a portal tile),
 * offered only when configured: they have no flow, so nothing binds them to the browser
 * that receives them (login CSRF is the accepted trade-off).
 */
export interface UnsolicitedSignIns {
  /**
   * True when the message names no request it answers, read without any check. A message
   * that names one (even a request nobody made) is never unsolicited: it goes the flow's way.
   */
  isUnsolicited(message: CallbackMessage): boolean;
  /** Completes it with every check of a solicited answer but the request binding; its single use holds across instances. */
  complete(message: CallbackMessage): Promise<UnsolicitedIdentity>;
  /** Where to land when the message names no local return URL: a local URL, checked at startup. */
  readonly defaultReturnUrl: string;
}

/**
 * Where a provider's logout messages arrive (OpenID Connect back- and front-channel
 * logout, SAML Single Logout): owned by the authentication middleware, like the callback.
 */
export type LogoutEndpoint = {
  path: string;
  messageMethods: readonly ('GET' | 'POST')[];
  /** The largest POSTed message accepted, in bytes; a larger one is refused (413) before it is read. */
  maxBodyBytes: number;
} & (
  | {
      /**
       * How the provider is answered. `back`: its server calls ours (OpenID Connect
       * back-channel logout), answered 200 with an empty body, or problem details, never
       * cached. `front`: the message comes through the user's browser (SAML Single Logout),
       * which is redirected on, to the provider's answer or to the signed-out login page.
       */
      channel: 'back' | 'front';
    }
  | {
      /**
       * `frame`: the message comes through the user's browser as the address of an iframe
       * in the provider's own page (OpenID Connect Front-Channel Logout), most often without
       * our cookies (a third-party frame): answered with a small page, never cached, that
       * only `framedBy` may frame.
       */
      channel: 'frame';
      /** The one origin allowed to frame the answer (CSP `frame-ancestors`): the provider's. */
      framedBy: string;
    }
);

/** What a verified logout message asks of the application. */
export type ProviderLogout =
  /**
   * The provider ended a session there: every session listed under one of `logoutKeys`
   * ends (see `ProviderIdentity.logoutKeys`); the keys in `endedSessions` name provider
   * sessions that ended, remembered for a while so that a sign-in of one of them completing
   * later is refused (they are logout keys too: a sign-in lists its session under them).
   * On the front channel the browser then goes to `replyUrl` (the provider's answer), or to
   * the signed-out login page when there is none; the back channel and a frame have none.
   * `unauthenticated` is true for a message that proves nothing of where it came from and
   * names sessions only by a secret value it carries (OpenID Connect Front-Channel Logout's
   * `sid`): anyone can send one, so it ends what it names and leaves no record of a request
   * that named nothing here; it names no `endedSessions` (nothing is written for it).
   */
  | {
      kind: 'request';
      logoutKeys: readonly string[];
      endedSessions: readonly string[];
      replyUrl: string | undefined;
      unauthenticated?: boolean;
    }
  /**
   * The provider's answer to a logout this application started (front channel): the
   * session ended already; on to the signed-out login page.
   */
  | { kind: 'response' };

/**
 * One external identity provider (OpenID Connect, SAML2, a social provider), whatever its
 * protocol. The application's sign-in bookkeeping (flow records, their binding to the
 * browser, single use, expiry, sessions) is written once, against this port, and knows no
 * protocol: the adapter reads its protocol's messages. Failures throw `GatehouseError`
 * with a stable `idp.*` code (`idp.unreachable`, `idp.timeout`, `idp.provider_error`,
 * `idp.token_exchange_failed`, `idp.id_token_invalid`, `idp.assertion_invalid` ...).
 */
export interface IdentityProvider {
  readonly info: IdentityProviderInfo;
  readonly callback: CallbackEndpoint;
  /**
   * Starts a challenge: where to send the browser, the correlation value, and the per-flow
   * secrets to keep. `loginHint` is the address the person typed, for the provider to
   * prefill (OpenID Connect `login_hint`, the SAML AuthnRequest's Subject); untrusted, and
   * never the proof of anything.
   */
  beginChallenge(options?: ChallengeOptions): Promise<ChallengeStart>;
  /**
   * The value that correlates a message with its flow (`state`, `RelayState`), read without
   * any network call or signature check; undefined when the message carries none. A value
   * sent twice is refused (`request.repeated_parameter`).
   */
  correlate(message: CallbackMessage): string | undefined;
  /**
   * The refusal the provider itself reports in the message (`error=access_denied`, a SAML
   * status other than success), as an `idp.provider_error`; undefined when it reports none.
   * Asked only once the message's flow was found and taken.
   */
  reportedError(message: CallbackMessage): GatehouseError | undefined;
  /** Completes the sign-in from the message and the secrets kept for its flow: claims, and the provider session to keep, if any. */
  completeCallback(message: CallbackMessage, secrets: FlowSecrets): Promise<ProviderIdentity>;
  /** Present only when the provider is configured to accept sign-ins it starts itself. */
  readonly unsolicited?: UnsolicitedSignIns;
  /**
   * True when the provider can be asked for a recent or stronger sign-in and says what it
   * did (OpenID Connect, SAML): only then is a step-up sent to it (docs/step-up.md).
   */
  readonly supportsStepUp?: boolean;
  /** What a GET at the callback path serves when GET carries no message there (SAML service-provider metadata). */
  callbackDocument?(): CallbackDocument;
  /**
   * Renews a kept provider session (OAuth: a refresh token spent for fresh tokens). A
   * definite refusal (the session cannot be renewed, ever) throws `idp.refresh_refused`;
   * any other failure may pass.
   */
  refreshSession?(record: ProviderSessionRecord): Promise<ProviderSession>;
  /**
   * The provider's logout paths, when it sends logout messages (OpenID Connect back- and
   * front-channel logout, SAML Single Logout): one per channel it uses.
   */
  readonly logoutEndpoints?: readonly LogoutEndpoint[];
  /**
   * Verifies a logout message that arrived at one of the logout paths (`endpoint`), as it
   * arrived, whole (signature, issuer, audience or destination, times, shape), and uses it
   * up: a signed message is accepted once, across instances. A message that fails any
   * check throws an `idp.*` GatehouseError and changes nothing; an unreachable provider
   * `idp.unreachable` / `idp.timeout`.
   */
  receiveLogout?(message: CallbackMessage, endpoint: LogoutEndpoint): Promise<ProviderLogout>;
  /** Where to send the browser to end the provider session too (RP-initiated logout), if supported and enabled. */
  signOutUrl?(record: ProviderSessionRecord | undefined): Promise<string | undefined>;
  /** The origin sign-out sends the browser's logout form to, when it does (the page's CSP `form-action` must allow it). */
  readonly formActionOrigin?: string | undefined;
  /** Readiness report on the provider's metadata. */
  readonly healthCheck?: HealthCheck;
  /**
   * The certificates the provider signs with, as the adapter last read its keys (SAML: the
   * metadata's signing certificates; OpenID Connect: the `x5c` of its key set's signing
   * keys, none when they carry none), reading them first when it never has: never a fetch
   * of its own per call. Fails with the `idp.*` error of a read that failed.
   */
  signingCertificates?(): Promise<readonly ProviderSigningCertificate[]>;
  /**
   * One attempt to reach the provider, made by a development start: a sentence for the
   * operator naming the host, the cause and the setting to look at, or undefined when it answered.
   */
  checkReachable?(): Promise<string | undefined>;
}

/** The instance's `IdentityProviders` (src/application/identity-providers.ts). */
export const IdentityProvidersToken = Symbol('IdentityProviders');
