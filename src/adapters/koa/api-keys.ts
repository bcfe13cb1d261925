import { createHash } from 'node:crypto';
import { constantTimeEqual } from '@oslojs/crypto/subtle';

/** An API key's id: the first 12 hex digits of its hash, what the audit trail names the caller by. */
const ID_LENGTH = 12;

/**
 * The administration API's keys, as `Administration:ApiKeys` holds them: the SHA-256 of
 * each, never a key. A presented key is hashed and compared with every hash in constant
 * time (all of them, found or not), so neither the answer's time nor the configuration
 * tells anything of a key. A key is 256 random bits (`npm run admin:new-api-key`): a hash
 * without a salt or stretching is enough for a secret nobody chose.
 */
export class ApiKeys {
  readonly #hashes: Uint8Array[];

  constructor(hexHashes: readonly string[]) {
    this.#hashes = hexHashes.map((hash) => Buffer.from(hash, 'hex'));
  }

  get size(): number {
    return this.#hashes.length;
  }

  /** The id of the key `presented` is, or undefined. */
  identify(presented: string): string | undefined {
    const hash = createHash('sha256').update(presented, 'utf8').digest();
    let found: Uint8Array | undefined;
    for (const candidate of this.#hashes) if (constantTimeEqual(candidate, hash) && !found) found = candidate;
    return found ? Buffer.from(found).toString('hex').slice(0, ID_LENGTH) : undefined;
  }
}

/** A new key and the hash to configure: the key goes to the job, the hash to `Administration:ApiKeys`. */
export function newApiKey(random: (bytes: number) => Buffer): { key: string; hash: string; id: string } {
  const key = `gh_${random(32).toString('base64url')}`;
  const hash = createHash('sha256').update(key, 'utf8').digest('hex');
  return { key, hash, id: hash.slice(0, ID_LENGTH) };
}
