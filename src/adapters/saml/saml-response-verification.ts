import type { KeyObject } from 'node:crypto';
import type { ServiceProviderInstance } from 'samlify';
import type { Clock } from '../../application/ports/clock.js';
import type { CallbackMessage, ProviderIdentity } from '../../application/ports/identity-provider.js';
import type { SessionStore } from '../../application/ports/session-store.js';
import { assertionClaims } from './assertion-claims.js';
import { checkAssertion, SAML_ID } from './assertion-checks.js';
import { AssertionReplayCache } from './assertion-replay-cache.js';
import type { ProvenAuthentication } from '../../domain/authorization/authentication-need.js';
import { provenByAssertion } from './authn-statement.js';
import { readDecryptedParts } from './decrypted-parts.js';
import { checkEncryptedResponseShape, hasEncryptedAssertion } from './encrypted-response-shape.js';
import type { IdentityProviderMetadata } from './identity-provider-metadata.js';
import type { LoadedMetadata } from './loaded-metadata.js';
import { postedResponseOf } from './posted-response.js';
import { checkResponseShape } from './response-shape.js';
import type { Saml2Settings } from './saml2-settings.js';
import { samlifyServiceProvider } from './samlify-entities.js';
import { samlRefusal } from './saml-refusals.js';
import type { SchemaCheck } from './saml-schema-validation.js';
import { attributeOf } from './saml-xml.js';
import { readSignedParts, type SignedParts } from './signed-parts.js';
import { signedInForLogout } from './signed-in-for-logout.js';
import { isWithinValidity } from './signing-certificate.js';

export interface SamlResponseVerificationOptions {
  settings: Saml2Settings;
  /** publicOrigin + ModulePath: Destination and Recipient must equal it. */
  acsUrl: string;
  clock: Clock;
  /** Tolerated clock difference with the identity provider, both ways. */
  clockSkewMs: number;
  /** The SAML schema check (the one samlify is given), for responses decrypted here. */
  validateSchema: SchemaCheck;
  /** The encryption keys' private halves, first one first; empty: an encrypted assertion is refused. */
  decryptionKeys: readonly KeyObject[];
  /** AuthnContextClassRef -> `amr` values (authn-context-methods.ts). */
  authnContextMethods: Readonly<Record<string, readonly string[]>>;
  /** The shared replay records: an assertion ID is spent there, so a replay fails on every instance. */
  replayRecords: SessionStore;
  /** The identity provider's metadata as last loaded (refreshing-metadata.ts). */
  metadata: () => Promise<LoadedMetadata>;
  /** SingleLogout is on: what a logout will need of the sign-in is kept with it. */
  keepsForLogout: boolean;
}

/**
 * A Response posted to the ACS, verified to an identity: the checks samlify makes (schema,
 * status, signature against the metadata's certificates, Issuer, Conditions), and what it
 * leaves to its caller (SECURITY.md), each on the signed element: the response's shape
 * (wrapping), SHA-256 or better, a signed Assertion when required, certificate validity,
 * Destination, Audience, the bearer confirmation (Recipient, NotOnOrAfter, InResponseTo =
 * this browser's request, or none for an unsolicited one), and single use of the
 * assertion. An encrypted assertion is decrypted here and held to the same checks.
 * Refusals are thrown as `idp.*` GatehouseErrors; `ids` collects the message's IDs
 * (shape-checked) for the caller's log line.
 */
export class SamlResponseVerification {
  readonly #options: SamlResponseVerificationOptions;
  readonly #serviceProvider: ServiceProviderInstance;
  readonly #replay: AssertionReplayCache;

  constructor(options: SamlResponseVerificationOptions) {
    this.#options = options;
    this.#serviceProvider = samlifyServiceProvider({
      entityId: options.settings.EntityId,
      acsUrl: options.acsUrl,
      wantAssertionsSigned: options.settings.RequireSignedAssertions,
      clockSkewMs: options.clockSkewMs,
    });
    this.#replay = new AssertionReplayCache(options.replayRecords);
  }

  /** `requestId`: the AuthnRequest this browser sent, or null for an unsolicited response (AllowIdpInitiated). */
  async verify(
    message: CallbackMessage,
    requestId: string | null,
    ids: Record<string, string>,
  ): Promise<ProviderIdentity> {
    const { encoded, xml, document } = postedResponseOf(message);
    if (this.#options.decryptionKeys.length > 0 && hasEncryptedAssertion(document)) {
      return this.#verifyEncrypted(xml, document, requestId, ids);
    }
    const shape = checkResponseShape(document);
    noteId(ids, 'responseId', attributeOf(shape.response, 'ID'));
    noteId(ids, 'assertionId', attributeOf(shape.assertion, 'ID'));
    if (this.#options.settings.RequireEncryptedAssertions) throw samlRefusal('idp.assertion_unencrypted');

    const { metadata, entities } = await this.#options.metadata();
    const signed = readSignedParts(
      xml,
      shape,
      metadata.signingCertificates,
      this.#options.settings.RequireSignedAssertions,
    );
    const { checked, claims, now, authentication } = this.#checkSigned(signed, shape.response, metadata, requestId);
    const kept = this.#keptForLogout(signed.assertion, metadata);

    // Kept from samlify, on the same message: schema, status, signature, Issuer, Conditions.
    const [signer] = signed.signers;
    const identityProvider = signer ? entities.get(signer.body) : undefined;
    if (!identityProvider) throw samlRefusal('idp.signature_invalid');
    await this.#serviceProvider.parseLoginResponse(identityProvider, 'post', { body: { SAMLResponse: encoded } });

    // Last, so that only an assertion that passed every check is spent.
    await this.#replay.use(checked.issuer, checked.id, checked.acceptableUntil, now);
    return this.#identity(claims, authentication, kept);
  }

  /**
   * An encrypted assertion, decrypted here (samlify's path through xml-encryption accepts
   * RSA PKCS#1 v1.5 and Triple DES, cannot be constrained, and prints its errors), then held
   * to every check a plain one gets, on the elements the signatures cover (DecryptedParts).
   * samlify is not asked again: its double check would need the encrypted form. The schema
   * check reads the response with the decrypted assertion in place.
   */
  async #verifyEncrypted(
    xml: string,
    document: Document,
    requestId: string | null,
    ids: Record<string, string>,
  ): Promise<ProviderIdentity> {
    const shape = checkEncryptedResponseShape(document);
    noteId(ids, 'responseId', attributeOf(shape.response, 'ID'));
    const { metadata } = await this.#options.metadata();
    const signed = readDecryptedParts(
      xml,
      shape,
      metadata.signingCertificates,
      this.#options.settings.RequireSignedAssertions,
      this.#options.decryptionKeys,
    );
    noteId(ids, 'assertionId', attributeOf(signed.assertion, 'ID'));
    const { checked, claims, now, authentication } = this.#checkSigned(signed, shape.response, metadata, requestId);
    await this.#options.validateSchema(signed.decryptedResponseXml);
    // The decrypted assertion names the sign-in for logout as a plain one does.
    const kept = this.#keptForLogout(signed.assertion, metadata);
    await this.#replay.use(checked.issuer, checked.id, checked.acceptableUntil, now);
    return this.#identity(claims, authentication, kept);
  }

  /** The accepted assertion's identity: its claims, what its AuthnStatement proves, and what a logout will need. */
  #identity(
    claims: Readonly<Record<string, readonly string[]>>,
    authentication: ProvenAuthentication,
    kept: ReturnType<typeof signedInForLogout> | undefined,
  ) {
    return kept ? { claims, authentication, ...kept } : { claims, authentication };
  }

  /** What a logout will need of this sign-in, when SingleLogout is on (signed-in-for-logout.ts). */
  #keptForLogout(assertion: Element, metadata: IdentityProviderMetadata) {
    return this.#options.keepsForLogout
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
      clockSkewMs: this.#options.clockSkewMs,
    });
    const claims = assertionClaims(signed.assertion);
    const authentication = provenByAssertion(signed.assertion, claims, this.#options.authnContextMethods);
    // An AuthnInstant ahead of now would pass every age requirement until that time comes
    // (a step-up's freshness for years): beyond the clock difference allowed, it is refused.
    if (authentication.time !== undefined && authentication.time * 1000 > now + this.#options.clockSkewMs) {
      throw samlRefusal('idp.authn_instant_in_future');
    }
    return { checked, claims, now, authentication };
  }
}

function noteId(ids: Record<string, string>, name: string, value: string | undefined): void {
  if (value !== undefined && SAML_ID.test(value)) ids[name] = value;
}
