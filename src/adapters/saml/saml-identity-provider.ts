import type { Clock } from '../../application/ports/clock.js';
import { randomToken } from '../../application/random-token.js';
import type { ObserveRequest } from '../outbound-requests.js';
import type { HealthCheck } from '../../application/ports/health-check.js';
import type {
  CallbackDocument,
  CallbackEndpoint,
  CallbackMessage,
  ChallengeOptions,
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  LogoutEndpoint,
  ProviderIdentity,
  UnsolicitedIdentity,
  UnsolicitedSignIns,
  ProviderLogout,
  ProviderSessionRecord,
  ProviderSigningCertificate,
} from '../../application/ports/identity-provider.js';
import type { Logger } from '../../application/ports/logger.js';
import type { SessionStore } from '../../application/ports/session-store.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import type { PemKeyPair } from '../pem-key-pair.js';
import { SAML_ID } from './assertion-checks.js';
import { loadMetadata, type LoadedMetadata } from './loaded-metadata.js';
import { authnRequestXml, newRequestId } from './outgoing-messages.js';
import { redirectBindingUrl } from './redirect-binding.js';
import { RefreshingMetadata } from './refreshing-metadata.js';
import type { Saml2Settings } from './saml2-settings.js';
import { translateSamlifyError } from './samlify-entities.js';
import { samlRefusal } from './saml-refusals.js';
import type { SchemaCheck } from './saml-schema-validation.js';
import { reportedStatus } from './saml-status.js';
import { serviceProviderMetadataXml } from './service-provider-metadata.js';
import { SamlResponseVerification } from './saml-response-verification.js';
import { SamlSingleLogout } from './single-logout.js';
import { isUnsolicitedMessage } from './unsolicited-response.js';
import { postedResponseOf } from './posted-response.js';
import { checkedMetadataTrust } from './saml-provider-configuration.js';
import { SamlRefusalLog } from './saml-refusal-log.js';
import { singleField } from '../single-field.js';
import { certificateFacts } from '../certificate-facts.js';

/** Tolerated clock difference with the identity provider, both ways (3 minutes: time-synchronized servers need far less). */
export const CLOCK_SKEW_MS = 3 * 60 * 1000;
/**
 * The largest form posted to the ACS: the base64 of a RESPONSE_SIZE response (171 KiB),
 * with room for the form's own percent-encoding of `+`, `/` and `=` and the RelayState. The
 * response itself is bounded again, decoded, before it is parsed (posted-response.ts).
 */
export const SAML_RESPONSE_LIMIT_BYTES = 256 * 1024;
/** The largest form posted to the single logout path: the base64 of a LOGOUT_MESSAGE_SIZE message (22 KiB), with the same room. */
export const LOGOUT_MESSAGE_LIMIT_BYTES = 32 * 1024;

export interface SamlProviderOptions {
  /** How the provider is listed and routed. */
  info: IdentityProviderInfo;
  settings: Saml2Settings;
  /** publicOrigin + ModulePath, built by the caller from configuration: Destination and Recipient must equal it. */
  acsUrl: string;
  /** Time-out of the metadata fetch. */
  timeoutMs: number;
  /** Watches the metadata fetch (telemetry); absent when off. */
  observeRequest?: ObserveRequest;
  /** The fetch of its metadata (AdapterContext's `fetch`): the global one when absent. */
  fetch?: typeof fetch;
  /** The shared session store: the logout requests we sent and await an answer to. */
  sessionStore: SessionStore;
  /** The shared replay records: assertion and LogoutRequest IDs are recorded there, so a replay fails on every instance. */
  replayRecords: SessionStore;
  logger: Logger;
  clock: Clock;
  /** The SAML schema check (the one samlify is given), for responses this adapter decrypts itself. */
  validateSchema: SchemaCheck;
  /** The encryption key pairs, first one first; empty: an encrypted assertion is refused. */
  encryptionKeys: readonly PemKeyPair[];
  /** The service provider's signing pair (SigningCertificate, SigningKey), when configured. */
  signing?: PemKeyPair;
  /** publicOrigin + SingleLogoutPath, when SingleLogout is on. */
  singleLogoutUrl?: string;
  /** AuthnContextClassRef -> `amr` values (authn-context-methods.ts). */
  authnContextMethods: Readonly<Record<string, readonly string[]>>;
}

/**
 * SAML 2.0 Web Browser SSO (SAML Profiles 4.1) as a service provider, with samlify: the
 * AuthnRequest goes out with the HTTP-Redirect binding, the Response comes back with
 * HTTP-POST to the ACS (ModulePath) and is verified to an identity by
 * SamlResponseVerification (samlify's checks and those it leaves to its caller, on the
 * signed elements; encrypted assertions decrypted here). With AllowIdpInitiated, a response
 * that names no request at all is checked the same way without a flow (`unsolicited`).
 * This class is the port's face: the configuration checked (saml-provider-configuration.ts),
 * metadata (refreshed, possibly a signed federation aggregate), challenges, single logout,
 * and each refusal logged (saml-refusal-log.ts) as it is thrown.
 */
export class SamlIdentityProvider implements IdentityProvider {
  readonly info: IdentityProviderInfo;
  readonly callback: CallbackEndpoint = { messageMethods: ['POST'], maxBodyBytes: SAML_RESPONSE_LIMIT_BYTES };
  readonly healthCheck: HealthCheck;
  readonly unsolicited?: UnsolicitedSignIns;
  /** ForceAuthn and RequestedAuthnContext (SAML Core 3.4.1) ask for a fresh or stronger sign-in; the AuthnStatement says what was done. */
  readonly supportsStepUp = true;
  readonly #options: SamlProviderOptions;
  readonly #metadata: RefreshingMetadata<LoadedMetadata>;
  readonly #responses: SamlResponseVerification;
  readonly #log: SamlRefusalLog;
  readonly #singleLogout: SamlSingleLogout | undefined;
  /** The single logout path, when SingleLogout is on: LogoutRequests and LogoutResponses arrive there. */
  readonly logoutEndpoints: readonly LogoutEndpoint[] = [];

  constructor(options: SamlProviderOptions) {
    const { settings } = options;
    const trust = checkedMetadataTrust(options);
    this.#options = options;
    this.info = options.info;
    this.#log = new SamlRefusalLog(options.logger, options.info.key);
    if (settings.SingleLogout && options.signing && options.singleLogoutUrl) {
      this.#singleLogout = new SamlSingleLogout({
        entityId: settings.EntityId,
        singleLogoutUrl: options.singleLogoutUrl,
        signingKey: options.signing.privateKey,
        store: options.sessionStore,
        replayRecords: options.replayRecords,
        clock: options.clock,
        clockSkewMs: CLOCK_SKEW_MS,
        validateCertificates: settings.ValidateCertificates,
        validateSchema: options.validateSchema,
      });
      this.logoutEndpoints = [
        {
          path: new URL(options.singleLogoutUrl).pathname,
          messageMethods: ['GET', 'POST'],
          maxBodyBytes: LOGOUT_MESSAGE_LIMIT_BYTES,
          // Both bindings travel through the browser, which goes on to the answer.
          channel: 'front',
        },
      ];
    }
    this.#metadata = new RefreshingMetadata({
      load: () =>
        loadMetadata(settings, options.timeoutMs, options.clock.now(), trust, options.observeRequest, options.fetch),
      clock: options.clock,
      onLoadFailed: (error, retryInMs) => this.#log.metadataFailed(error, retryInMs),
    });
    this.#responses = new SamlResponseVerification({
      settings,
      acsUrl: options.acsUrl,
      clock: options.clock,
      validateSchema: options.validateSchema,
      decryptionKeys: options.encryptionKeys.map((pair) => pair.privateKey),
      authnContextMethods: options.authnContextMethods,
      replayRecords: options.replayRecords,
      metadata: () => this.#metadata.get(),
      clockSkewMs: CLOCK_SKEW_MS,
      keepsForLogout: this.#singleLogout !== undefined,
    });
    if (settings.AllowIdpInitiated) {
      this.unsolicited = {
        isUnsolicited: isUnsolicitedMessage,
        complete: (message) => this.#completeUnsolicited(message),
        defaultReturnUrl: settings.IdpInitiatedReturnUrl,
      };
    }
    this.healthCheck = {
      name: `identityProvider:${options.info.key}`,
      // Not required: an identity-provider outage must not take every replica out of
      // rotation; local sign-in and existing sessions keep working without it.
      required: false,
      check: async () => {
        try {
          await this.#metadata.get();
          return 'up';
        } catch {
          return 'down';
        }
      },
    };
  }

  /** The metadata's signing certificates, as last loaded (a load only when none succeeded yet; refreshed hourly on use). */
  async signingCertificates(): Promise<readonly ProviderSigningCertificate[]> {
    const { metadata } = await this.#metadataOrRefusal();
    return metadata.signingCertificates.flatMap((certificate) => certificateFacts(certificate.body) ?? []);
  }

  async beginChallenge(options: ChallengeOptions = {}): Promise<ChallengeStart> {
    // SAML Bindings 3.4.3: RelayState is at most 80 bytes; 256 random bits in base64url are 43.
    const relayState = randomToken(32);
    const { metadata } = await this.#metadataOrRefusal();
    const { settings, clock, signing } = this.#options;
    const id = newRequestId();
    const xml = authnRequestXml({
      id,
      now: clock.now(),
      destination: metadata.singleSignOnUrl,
      issuer: settings.EntityId,
      acsUrl: this.#options.acsUrl,
      ...(options.loginHint === undefined ? {} : { loginHint: options.loginHint }),
      ...(options.stepUp ? { stepUp: options.stepUp.need } : {}),
    });
    // SAML Bindings 3.4.4.1: signed in the query (SigAlg, Signature), never in the XML.
    const signingKey = settings.SignAuthnRequests ? signing?.privateKey : undefined;
    return {
      redirectUrl: redirectBindingUrl(metadata.singleSignOnUrl, 'SAMLRequest', xml, {
        relayState,
        ...(signingKey ? { signingKey } : {}),
      }),
      correlation: relayState,
      secrets: { requestId: id },
    };
  }

  correlate(message: CallbackMessage): string | undefined {
    const value = singleField(message.form, 'RelayState');
    return value === '' ? undefined : value;
  }

  reportedError(message: CallbackMessage): GatehouseError | undefined {
    try {
      const error = reportedStatus(postedResponseOf(message).document.documentElement);
      if (error) this.#log.refused('callback', error);
      return error;
    } catch {
      return undefined; // a message that cannot be read is refused by completeCallback, with its reason
    }
  }

  async completeCallback(message: CallbackMessage, secrets: FlowSecrets): Promise<ProviderIdentity> {
    const ids: Record<string, string> = {};
    try {
      const requestId = secrets.requestId;
      if (requestId === undefined || !SAML_ID.test(requestId)) {
        throw new GatehouseError('idp.flow_missing', 'The sign-in could not be completed: it was not started here.', {
          safe: true,
        });
      }
      ids.requestId = requestId;
      return await this.#responses.verify(message, requestId, ids);
    } catch (thrown) {
      throw this.#log.refused('callback', isGatehouseError(thrown) ? thrown : translateSamlifyError(thrown), ids);
    }
  }

  /**
   * An IdP-initiated response (AllowIdpInitiated): every check of a solicited one, with
   * "names no request" in place of "answers this browser's request", and single use of its
   * assertion in the shared store. RelayState is, by convention, where to land: returned
   * untouched for the application to keep only if it is a local URL.
   */
  async #completeUnsolicited(message: CallbackMessage): Promise<UnsolicitedIdentity> {
    const ids: Record<string, string> = {};
    try {
      const requestedReturnUrl = singleField(message.form, 'RelayState');
      return { identity: await this.#responses.verify(message, null, ids), requestedReturnUrl };
    } catch (thrown) {
      throw this.#log.refused('unsolicited', isGatehouseError(thrown) ? thrown : translateSamlifyError(thrown), ids);
    }
  }

  callbackDocument(): CallbackDocument {
    const { settings, signing } = this.#options;
    return {
      contentType: 'application/samlmetadata+xml',
      body: serviceProviderMetadataXml({
        entityId: settings.EntityId,
        acsUrl: this.#options.acsUrl,
        wantAssertionsSigned: settings.RequireSignedAssertions,
        authnRequestsSigned: settings.SignAuthnRequests,
        signingCertificate: signing?.certificateBody,
        encryptionCertificates: this.#options.encryptionKeys.map((pair) => pair.certificateBody),
        singleLogoutUrl: this.#singleLogout ? this.#options.singleLogoutUrl : undefined,
      }),
    };
  }

  async receiveLogout(message: CallbackMessage): Promise<ProviderLogout> {
    const singleLogout = this.#singleLogout;
    if (!singleLogout) throw samlRefusal('idp.logout_unexpected');
    const { metadata } = await this.#metadataOrRefusal();
    try {
      return await singleLogout.receive(message, metadata);
    } catch (thrown) {
      throw this.#log.refused('logout', isGatehouseError(thrown) ? thrown : samlRefusal('idp.logout_malformed'));
    }
  }

  /**
   * SP-initiated single logout: a CSP `form-action` must allow the redirect that follows
   * the logout form, and it is fixed at startup, before metadata is read: the metadata's
   * origin stands for the identity provider's.
   */
  get formActionOrigin(): string | undefined {
    return this.#singleLogout ? new URL(this.#options.settings.MetadataUrl).origin : undefined;
  }

  /**
   * The identity provider's single logout URL with a signed LogoutRequest for the kept
   * NameID and SessionIndex, when SingleLogout is on and the metadata lists an
   * HTTP-Redirect SingleLogoutService on the metadata's origin (the page's CSP allows no
   * other); otherwise undefined: signed out here only.
   */
  async signOutUrl(record: ProviderSessionRecord | undefined): Promise<string | undefined> {
    if (!this.#singleLogout) return undefined;
    const { metadata } = await this.#metadataOrRefusal();
    const location = metadata.singleLogout?.location;
    if (location !== undefined && new URL(location).origin !== this.formActionOrigin) {
      this.#log.singleLogoutElsewhere();
      return undefined;
    }
    return this.#singleLogout.requestUrl(record, metadata);
  }

  async #metadataOrRefusal(): Promise<LoadedMetadata> {
    try {
      return await this.#metadata.get();
    } catch (error) {
      throw this.#log.refused('metadata', isGatehouseError(error) ? error : samlRefusal('idp.metadata_invalid'));
    }
  }
}
