import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../application/ports/clock.js';
import type {
  CallbackMessage,
  ProviderLogout,
  ProviderSessionRecord,
} from '../../application/ports/identity-provider.js';
import type { SessionStore } from '../../application/ports/session-store.js';
import type { IdentityProviderMetadata } from './identity-provider-metadata.js';
import { logoutRequestXml, logoutResponseXml, newRequestId } from './outgoing-messages.js';
import { LOGOUT_MESSAGE_LIFETIME_MS, readLogoutMessage } from './received-logout.js';
import { redirectBindingUrl } from './redirect-binding.js';
import { endedSessionKeyOf, logoutKeysOf, readSamlSessionRecord } from './saml-name-id.js';
import { samlRefusal } from './saml-refusals.js';

/** How long a LogoutRequest we sent waits for its answer: the user confirms at the identity provider meanwhile. */
export const OUTSTANDING_LOGOUT_MS = 10 * 60 * 1000;

export interface SingleLogoutOptions {
  /** Our entity ID: the Issuer of what we send, and the default SPNameQualifier. */
  entityId: string;
  /** Our single logout URL (publicOrigin + SingleLogoutPath): the Destination of what we receive. */
  singleLogoutUrl: string;
  signingKey: KeyObject;
  /** The shared session store: requests outstanding. */
  store: SessionStore;
  /** The shared replay records: request IDs used. */
  replayRecords: SessionStore;
  clock: Clock;
  clockSkewMs: number;
  validateCertificates: boolean;
  validateSchema: (xml: string) => Promise<unknown>;
}

/**
 * SAML 2.0 Single Logout (SAML Profiles 4.4) as a service provider, with the
 * HTTP-Redirect binding out and HTTP-Redirect or HTTP-POST in. Every record it keeps is in
 * the shared store, so any instance can take any message: a LogoutRequest ID is used once
 * (`saml-logout-used:`), a LogoutRequest we sent is outstanding until its answer arrives
 * once (`saml-logout-pending:`). Keys are hashes of the identity provider and the ID. A
 * SessionIndex the identity provider logged out goes back as an ended provider session
 * (`endedSessionKeyOf`), which the application remembers for a while, so that a sign-in
 * still in flight for it is refused.
 */
export class SamlSingleLogout {
  readonly #options: SingleLogoutOptions;

  constructor(options: SingleLogoutOptions) {
    this.#options = options;
  }

  /** Verifies a message at the single logout path; a request is used once, a response must answer our outstanding request. */
  async receive(message: CallbackMessage, metadata: IdentityProviderMetadata): Promise<ProviderLogout> {
    const { store, clock, entityId } = this.#options;
    const now = clock.now();
    const received = await readLogoutMessage(message, {
      issuer: metadata.entityId,
      destination: this.#options.singleLogoutUrl,
      certificates: metadata.signingCertificates,
      validateCertificates: this.#options.validateCertificates,
      validateSchema: this.#options.validateSchema,
      now,
      clockSkewMs: this.#options.clockSkewMs,
    });
    if (received.kind === 'response') {
      // Single use: the outstanding record is taken, so a replayed answer finds nothing.
      if (!(await store.take(pendingKey(metadata.entityId, received.inResponseTo)))) {
        throw samlRefusal('idp.logout_unexpected');
      }
      return { kind: 'response' };
    }
    // Last, so that only a request that passed every check is spent.
    const ttl = Math.max(received.acceptableUntil - now, 60_000);
    if (!(await this.#options.replayRecords.create(usedKey(metadata.entityId, received.id), {}, ttl))) {
      throw samlRefusal('idp.logout_replayed');
    }
    const logoutKeys =
      received.sessionIndexes.length === 0
        ? logoutKeysOf(metadata.entityId, entityId, received.nameId, undefined)
        : received.sessionIndexes.map(
            (sessionIndex) => logoutKeysOf(metadata.entityId, entityId, received.nameId, sessionIndex)[1] as string,
          );
    const replyUrl = metadata.singleLogout
      ? redirectBindingUrl(
          metadata.singleLogout.responseLocation,
          'SAMLResponse',
          logoutResponseXml({
            id: newRequestId(),
            now,
            destination: metadata.singleLogout.responseLocation,
            issuer: entityId,
            inResponseTo: received.id,
          }),
          // SAML Bindings 3.4.3: the request's RelayState goes back unchanged.
          {
            signingKey: this.#options.signingKey,
            ...(received.relayState === undefined ? {} : { relayState: received.relayState }),
          },
        )
      : undefined;
    return {
      kind: 'request',
      logoutKeys,
      endedSessions: received.sessionIndexes.map((sessionIndex) => endedSessionKeyOf(metadata.entityId, sessionIndex)),
      replyUrl,
    };
  }

  /**
   * The identity provider's single logout URL with a signed LogoutRequest naming the kept
   * NameID and SessionIndex, the request recorded as outstanding; undefined when the
   * identity provider lists no HTTP-Redirect SingleLogoutService or nothing was kept.
   */
  async requestUrl(
    record: ProviderSessionRecord | undefined,
    metadata: IdentityProviderMetadata,
  ): Promise<string | undefined> {
    const kept = readSamlSessionRecord(record);
    if (!kept || !metadata.singleLogout) return undefined;
    const { store, clock, entityId } = this.#options;
    const id = newRequestId();
    const now = clock.now();
    const destination = metadata.singleLogout.location;
    await store.create(pendingKey(metadata.entityId, id), {}, OUTSTANDING_LOGOUT_MS);
    const xml = logoutRequestXml({
      id,
      now,
      notOnOrAfter: now + LOGOUT_MESSAGE_LIFETIME_MS,
      destination,
      issuer: entityId,
      nameId: kept.nameId,
      sessionIndex: kept.sessionIndex,
    });
    return redirectBindingUrl(destination, 'SAMLRequest', xml, { signingKey: this.#options.signingKey });
  }
}

function hashed(prefix: string, identityProvider: string, value: string): string {
  return `${prefix}:${encodeHexLowerCase(sha256(new TextEncoder().encode(`${identityProvider}\n${value}`)))}`;
}

const usedKey = (idp: string, id: string) => hashed('saml-logout-used', idp, id);
const pendingKey = (idp: string, id: string) => hashed('saml-logout-pending', idp, id);
