import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import type { ProviderKey } from '../../domain/settings/settings.js';
import { ReplayRecordStoreToken, type SessionStore } from '../ports/session-store.js';
import { FLOW_LIFETIME_MS } from './flow-records.js';

/**
 * How long a provider's ended session is remembered: as long as a sign-in started before
 * the ending can still complete. A flow lives 15 minutes; a sign-in the provider starts
 * itself (SAML IdP-initiated) has no flow, only its assertion's few minutes of validity
 * and 3 minutes of clock skew. 20 minutes covers both.
 */
export const ENDED_SESSION_MEMORY_MS = Math.max(FLOW_LIFETIME_MS + 60_000, 20 * 60 * 1000);

/**
 * The provider sessions a provider's logout ended (an OpenID Connect `sid`, a SAML
 * SessionIndex), remembered for a while in the shared store: a sign-in of such a session
 * whose answer completes after the logout was accepted (its code redeemed or its assertion
 * issued before the provider ended the session, its callback late) must not establish a
 * session that no later logout would end. The logout marks first and then ends the listed
 * sessions; a sign-in lists its session first and then looks for the mark: whichever
 * comes second sees the other, on any instance. Marks live with the replay records, which
 * no traffic evicts: a mark pushed out early would let the late sign-in through.
 */
@injectable()
export class EndedProviderSessions {
  constructor(@inject(ReplayRecordStoreToken) private readonly store: SessionStore) {}

  /** Marks the provider session named by this logout key (`ProviderIdentity.logoutKeys`) as ended. */
  async mark(provider: ProviderKey, logoutKey: string): Promise<void> {
    // false: marked already by an earlier logout, which is as good.
    await this.store.create(key(provider, logoutKey), {}, ENDED_SESSION_MEMORY_MS);
  }

  async isEnded(provider: ProviderKey, logoutKey: string): Promise<boolean> {
    return (await this.store.get(key(provider, logoutKey))) !== undefined;
  }
}

function key(provider: ProviderKey, logoutKey: string): string {
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${provider}\n${logoutKey}`)));
  return `ended-provider-session:${hash.slice(0, 40)}`;
}
