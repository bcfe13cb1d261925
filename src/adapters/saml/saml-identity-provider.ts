import { randomBytes, type KeyObject } from 'node:crypto';
import type { ServiceProviderInstance } from 'samlify';
import type { Clock } from '../../application/ports/clock.js';
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
} from '../../application/ports/identity-provider.js';
import type { Logger } from '../../application/ports/logger.js';
import type { SessionStore } from '../../application/ports/session-store.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import type { PemKeyPair } from '../pem-key-pair.js';
import { assertionClaims } from './assertion-claims.js';
import { decryptionStepOf } from './assertion-decryption.js';
import { checkAssertion, SAML_ID } from './assertion-checks.js';
import { AssertionReplayCache } from './assertion-replay-cache.js';
import { readDecryptedParts } from './decrypted-parts.js';
import { checkEncryptedResponseShape, hasEncryptedAssertion } from './encrypted-response-shape.js';
import type { IdentityProviderMetadata, MetadataTrust } from './identity-provider-metadata.js';
import { loadMetadata, type LoadedMetadata } from './loaded-metadata.js';
import { authnRequestXml, newRequestId } from './outgoing-messages.js';
import { provenByAssertion } from './authn-statement.js';
import { redirectBindingUrl } from './redirect-binding.js';
import { RefreshingMetadata } from './refreshing-metadata.js';
import { checkResponseShape } from './response-shape.js';
import type { Saml2Settings } from './saml2-settings.js';
import { samlifyServiceProvider, translateSamlifyError } from './samlify-entities.js';
import { samlRefusal } from './saml-refusals.js';
import type { SchemaCheck } from './saml-schema-validation.js';
import { reportedStatus } from './saml-status.js';
import { attributeOf } from './saml-xml.js';
import { serviceProviderMetadataXml } from './service-provider-metadata.js';
import { readSignedParts, type SignedParts } from './signed-parts.js';
import { isWithinValidity, readPemCertificate } from './signing-certificate.js';
import { signedInForLogout } from './signed-in-for-logout.js';
import { SamlSingleLogout } from './single-logout.js';
import { namesNoRequest } from './unsolicited-response.js';
import { postedResponseOf } from './posted-response.js';
import { singleField } from '../single-field.js';

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
 * HTTP-POST to the ACS (ModulePath). samlify checks the schema, the status, the signature
 * against the metadata's certificates, the Issuer and the Conditions window; this adapter
 * adds what samlify leaves to its caller (SECURITY.md), each on the signed element: the
 * response's shape (wrapping), SHA-256 or better, a signed Assertion when required,
 * certificate validity, Destination, Audience, the bearer confirmation (Recipient,
 * NotOnOrAfter, InResponseTo = this browser's request), and single use of the assertion.
 * With an encryption key configured, an encrypted assertion is decrypted here and held to
 * the same checks (#completeEncrypted). With AllowIdpInitiated, a response that names no
 * request at all is checked the same way without a flow (`unsolicited`). The metadata may
 * be a federation aggregate, signed.
 */
export class SamlIdentityProvider implements IdentityProvider {
  readonly info: IdentityProviderInfo;
  readonly callback: CallbackEndpoint = { messageMethods: ['POST'], maxBodyBytes: SAML_RESPONSE_LIMIT_BYTES };
  readonly healthCheck: HealthCheck;
  readonly unsolicited?: UnsolicitedSignIns;
  /** ForceAuthn and RequestedAuthnContext (SAML Core 3.4.1) ask for a fresh or stronger sign-in; the AuthnStatement says what was done. */
  readonly supportsStepUp = true;
  readonly #options: SamlProviderOptions;
  readonly #serviceProvider: ServiceProviderInstance;
  readonly #metadata: RefreshingMetadata<LoadedMetadata>;
  readonly #replay: AssertionReplayCache;
  readonly #decryptionKeys: KeyObject[];
  readonly #trust: MetadataTrust;
  readonly #singleLogout: SamlSingleLogout | undefined;
  /** The single logout path, when SingleLogout is on: LogoutRequests and LogoutResponses arrive there. */
  readonly logoutEndpoints: readonly LogoutEndpoint[] = [];

  constructor(options: SamlProviderOptions) {
    const acs = URL.canParse(options.acsUrl) ? new URL(options.acsUrl) : undefined;
    if (!acs || !/^https?:$/.test(acs.protocol) || acs.search !== '' || acs.hash !== '') {
      throw new GatehouseError('config.invalid', 'The SAML ACS URL must be an absolute http(s) URL without query.');
    }
    if (!(options.timeoutMs > 0)) throw new GatehouseError('config.invalid', 'The SAML time-out must be positive.');
    const { settings } = options;
    this.#options = options;
    this.info = options.info;
    this.#serviceProvider = samlifyServiceProvider({
      entityId: settings.EntityId,
      acsUrl: options.acsUrl,
      wantAssertionsSigned: settings.RequireSignedAssertions,
      clockSkewMs: CLOCK_SKEW_MS,
    });
    this.#decryptionKeys = options.encryptionKeys.map((pair) => pair.privateKey);
    this.#replay = new AssertionReplayCache(options.replayRecords);
    const metadataSigner = settings.MetadataSigningCertificate.trim();
    this.#trust = {
      idpEntityId: settings.IdpEntityId,
      signingCertificate: metadataSigner === '' ? undefined : readPemCertificate(metadataSigner),
      signsAuthnRequests: settings.SignAuthnRequests,
    };
    if (metadataSigner !== '' && !this.#trust.signingCertificate) {
      throw new GatehouseError('config.invalid', 'The SAML MetadataSigningCertificate is not a PEM certificate.');
    }
    if ((settings.SignAuthnRequests || settings.SingleLogout) && !options.signing) {
      throw new GatehouseError('config.invalid', 'SAML signing needs SigningCertificate and SigningKey.');
    }
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
      load: () => loadMetadata(settings, options.timeoutMs, options.clock.now(), this.#trust, options.observeRequest),
      clock: options.clock,
      onLoadFailed: (error, retryInMs) => this.#metadataFailed(error, retryInMs),
    });
    if (settings.AllowIdpInitiated) {
      this.unsolicited = {
        isUnsolicited: (message) => {
          let document: Document;
          try {
            ({ document } = postedResponseOf(message));
          } catch {
            return false; // unreadable: the flow's way refuses it, with its reason
          }
          return namesNoRequest(document);
        },
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

  async beginChallenge(options: ChallengeOptions = {}): Promise<ChallengeStart> {
    // SAML Bindings 3.4.3: RelayState is at most 80 bytes; 256 random bits in base64url are 43.
    const relayState = randomBytes(32).toString('base64url');
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
      if (error) this.#log('callback', error, {});
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
      return await this.#complete(message, requestId, ids);
    } catch (thrown) {
      throw this.#refused('callback', isGatehouseError(thrown) ? thrown : translateSamlifyError(thrown), ids);
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
      return { identity: await this.#complete(message, null, ids), requestedReturnUrl };
    } catch (thrown) {
      throw this.#refused('unsolicited', isGatehouseError(thrown) ? thrown : translateSamlifyError(thrown), ids);
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
      throw this.#refused('logout', isGatehouseError(thrown) ? thrown : samlRefusal('idp.logout_malformed'), {});
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
      this.#options.logger.warn(
        { provider: this.info.key, stage: 'logout' },
        'the SingleLogoutService is on another origin than MetadataUrl: signed out locally only',
      );
      return undefined;
    }
    return this.#singleLogout.requestUrl(record, metadata);
  }

  async #complete(
    message: CallbackMessage,
    requestId: string | null,
    ids: Record<string, string>,
  ): Promise<ProviderIdentity> {
    const { encoded, xml, document } = postedResponseOf(message);
    if (this.#decryptionKeys.length > 0 && hasEncryptedAssertion(document)) {
      return this.#completeEncrypted(xml, document, requestId, ids);
    }
    const shape = checkResponseShape(document);
    noteId(ids, 'responseId', attributeOf(shape.response, 'ID'));
    noteId(ids, 'assertionId', attributeOf(shape.assertion, 'ID'));
    if (this.#options.settings.RequireEncryptedAssertions) throw samlRefusal('idp.assertion_unencrypted');

    const { metadata, entities } = await this.#metadata.get();
    const signed = readSignedParts(
      xml,
      shape,
      metadata.signingCertificates,
      this.#options.settings.RequireSignedAssertions,
    );
    const { checked, claims, now } = this.#checkSigned(signed, shape.response, metadata, requestId);
    const kept = this.#keptForLogout(signed.assertion, metadata);

    // Kept from samlify, on the same message: schema, status, signature, Issuer, Conditions.
    const [signer] = signed.signers;
    const identityProvider = signer ? entities.get(signer.body) : undefined;
    if (!identityProvider) throw samlRefusal('idp.signature_invalid');
    await this.#serviceProvider.parseLoginResponse(identityProvider, 'post', { body: { SAMLResponse: encoded } });

    // Last, so that only an assertion that passed every check is spent.
    await this.#replay.use(checked.issuer, checked.id, checked.acceptableUntil, now);
    return this.#identity(signed.assertion, claims, kept);
  }

  /**
   * An encrypted assertion, decrypted here (samlify's path through xml-encryption accepts
   * RSA PKCS#1 v1.5 and Triple DES, cannot be constrained, and prints its errors), then held
   * to every check a plain one gets, on the elements the signatures cover (DecryptedParts).
   * samlify is not asked again: its double check would need the encrypted form. The schema
   * check reads the response with the decrypted assertion in place.
   */
  async #completeEncrypted(
    xml: string,
    document: Document,
    requestId: string | null,
    ids: Record<string, string>,
  ): Promise<ProviderIdentity> {
    const shape = checkEncryptedResponseShape(document);
    noteId(ids, 'responseId', attributeOf(shape.response, 'ID'));
    const { metadata } = await this.#metadata.get();
    const signed = readDecryptedParts(
      xml,
      shape,
      metadata.signingCertificates,
      this.#options.settings.RequireSignedAssertions,
      this.#decryptionKeys,
    );
    noteId(ids, 'assertionId', attributeOf(signed.assertion, 'ID'));
    const { checked, claims, now } = this.#checkSigned(signed, shape.response, metadata, requestId);
    await this.#options.validateSchema(signed.decryptedResponseXml);
    // The decrypted assertion names the sign-in for logout as a plain one does.
    const kept = this.#keptForLogout(signed.assertion, metadata);
    await this.#replay.use(checked.issuer, checked.id, checked.acceptableUntil, now);
    return this.#identity(signed.assertion, claims, kept);
  }

  /** The accepted assertion's identity: its claims, what its AuthnStatement proves, and what a logout will need. */
  #identity(
    assertion: Element,
    claims: Readonly<Record<string, readonly string[]>>,
    kept: ReturnType<typeof signedInForLogout> | undefined,
  ) {
    const authentication = provenByAssertion(assertion, claims, this.#options.authnContextMethods);
    return kept ? { claims, authentication, ...kept } : { claims, authentication };
  }

  /** What a logout will need of this sign-in, when SingleLogout is on (signed-in-for-logout.ts). */
  #keptForLogout(assertion: Element, metadata: IdentityProviderMetadata) {
    return this.#singleLogout
      ? signedInForLogout(assertion, metadata.entityId, this.#options.settings.EntityId)
      : undefined;
  }

  /** What samlify leaves to its caller, on the signed parts: certificate validity, then checkAssertion; and the claims. */
  #checkSigned(
    signed: SignedParts,
    unsignedResponse: Element,
    metadata: IdentityProviderMetadata,
    requestId: string | null,
  ) {
    const { settings, clock } = this.#options;
    const now = clock.now();
    if (settings.ValidateCertificates && !signed.signers.every((signer) => isWithinValidity(signer, now))) {
      throw samlRefusal('idp.certificate_expired');
    }
    const checked = checkAssertion(signed, unsignedResponse, {
      issuer: metadata.entityId,
      audience: settings.EntityId,
      acsUrl: this.#options.acsUrl,
      requestId,
      now,
      clockSkewMs: CLOCK_SKEW_MS,
    });
    return { checked, claims: assertionClaims(signed.assertion), now };
  }

  async #metadataOrRefusal(): Promise<LoadedMetadata> {
    try {
      return await this.#metadata.get();
    } catch (error) {
      throw this.#refused('metadata', isGatehouseError(error) ? error : samlRefusal('idp.metadata_invalid'), {});
    }
  }

  /** Logs a refusal by its code and the message's IDs (shape-checked), never its content; returns it to throw. */
  #refused(stage: string, error: GatehouseError, ids: Record<string, string>): GatehouseError {
    this.#log(stage, error, ids);
    return error;
  }

  /**
   * A failed metadata load, once per attempt (attempts are spaced: refreshing-metadata.ts):
   * its code, its reason (written by Gatehouse, never quoting the document or the URL), and
   * when the next attempt may start. Requests meanwhile are refused with the same error.
   */
  #metadataFailed(error: unknown, retryInMs: number): void {
    this.#options.logger.warn(
      {
        provider: this.info.key,
        stage: 'metadata',
        code: isGatehouseError(error) ? error.code : 'idp.metadata_invalid',
        ...(isGatehouseError(error) && error.safe ? { reason: error.message } : {}),
        retryInSeconds: Math.ceil(retryInMs / 1000),
      },
      'SAML metadata could not be loaded',
    );
  }

  #log(stage: string, error: unknown, ids: Record<string, string>): void {
    const code = isGatehouseError(error) ? error.code : 'idp.metadata_invalid';
    // Which decryption step failed is for the operator only: the answer is the same for all.
    const decryption = isGatehouseError(error) ? decryptionStepOf(error) : undefined;
    this.#options.logger.warn(
      { provider: this.info.key, stage, code, ...(decryption ? { decryption } : {}), ...ids },
      'SAML step failed',
    );
  }
}

function noteId(ids: Record<string, string>, name: string, value: string | undefined): void {
  if (value !== undefined && SAML_ID.test(value)) ids[name] = value;
}
