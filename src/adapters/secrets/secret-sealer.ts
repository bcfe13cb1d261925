import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import type { SealingContext, SecretSealing } from '../../application/ports/secret-sealing.js';
import { GatehouseError } from '../../domain/errors.js';
import { checkEncryptionKeys } from '../../domain/settings/encryption-key-rules.js';
import { keyOf } from '../../domain/settings/problem.js';

export type { SealingContext } from '../../application/ports/secret-sealing.js';

const VERSION = 'gh1';
const ALGORITHM = 'aes-256-gcm';
/** NIST SP 800-38D 8.2.2: a random 96-bit nonce for each seal, safe up to 2^32 seals per key (a connection store seals thousands, and rotation starts a new count). */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** The largest secret sealed: a PEM private key of RSA 4096 is about 3.3 KB; this leaves room and bounds the work an altered stored value can ask for. */
const MAX_SECRET_BYTES = 16 * 1024;
/** `gh1.` + key id + `.` + nonce + `.` + the largest body, in base64url: longer text is refused before any decoding. */
const MAX_SEALED_CHARS = VERSION.length + 1 + 8 + 1 + 16 + 1 + Math.ceil(((MAX_SECRET_BYTES + TAG_BYTES) * 4) / 3);
const KEY_ID = /^[0-9a-f]{8}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const KEYS_SETTING = keyOf('Administration', 'EncryptionKeys');

interface SealingKey {
  id: string;
  key: KeyObject;
}

/**
 * Seals connection secrets (client secrets, private_key_jwt keys, SAML service-provider
 * private keys) for storage: AES-256-GCM with a random 96-bit nonce, the connection's name
 * and the secret's field name as associated data (a sealed value copied to another
 * connection or field does not open), and a 128-bit tag.
 *
 * A sealed value is one string, `gh1.<key id>.<nonce>.<ciphertext and tag>`, the last two in
 * base64url without padding. The key id is the first 8 hex digits of SHA-256 of the key's
 * bytes: it picks the key to open with and says nothing useful about the key.
 *
 * Keys: the first encrypts, every one decrypts. To rotate, put a new key first, reseal every
 * stored value for which `needsResealing` is true, then remove the old key.
 *
 * An empty secret is refused rather than sealed: a stored sealed empty string would look like
 * a configured secret and hide a missing one; a connection without a secret stores none.
 *
 * No error message holds a secret, a key, or a sealed value.
 */
export class SecretSealer implements SecretSealing {
  readonly #keys: ReadonlyMap<string, KeyObject>;
  readonly #primary: SealingKey;

  constructor(base64Keys: readonly string[]) {
    const problems = checkEncryptionKeys(base64Keys);
    if (problems.length > 0) {
      throw new GatehouseError(
        'secrets.keys_invalid',
        problems.map((problem) => `${problem.key} ${problem.message}`).join('; '),
      );
    }
    const keys = base64Keys.map(toSealingKey);
    const primary = keys[0];
    if (primary === undefined) {
      throw new GatehouseError('secrets.keys_invalid', `${KEYS_SETTING} lists no key: at least one is needed`);
    }
    const byId = new Map<string, KeyObject>();
    for (const { id, key } of keys) {
      // Two different keys with one 32-bit id are about a one-in-four-billion chance; refuse
      // rather than open with the wrong one.
      if (byId.has(id))
        throw new GatehouseError('secrets.keys_invalid', `${KEYS_SETTING}: two keys share the id ${id}: replace one`);
      byId.set(id, key);
    }
    this.#keys = byId;
    this.#primary = primary;
  }

  /** Seals `secret` for `context` under the first key. */
  seal(secret: string, context: SealingContext): string {
    const plaintext = Buffer.from(secret, 'utf8');
    if (plaintext.length === 0)
      throw new GatehouseError('secrets.secret_empty', 'an empty secret is not sealed: store none instead');
    if (plaintext.length > MAX_SECRET_BYTES) {
      throw new GatehouseError('secrets.secret_too_large', `a secret is at most ${MAX_SECRET_BYTES} bytes`);
    }
    const { id, key } = this.#primary;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(id, context));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, id, nonce.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The secret sealed in `sealed` for `context`; refuses anything malformed, unknown or altered. */
  open(sealed: string, context: SealingContext): string {
    const parts = parse(sealed);
    const key = this.#keyFor(parts.keyId);
    const decipher = createDecipheriv(ALGORITHM, key, parts.nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(parts.keyId, context));
    decipher.setAuthTag(parts.tag);
    try {
      return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      // Node says only "unable to authenticate data"; no cause is kept, so nothing of the
      // value can travel with the error.
      throw new GatehouseError(
        'secrets.open_failed',
        `a sealed secret did not open for connection ${JSON.stringify(context.connection)}, field ${JSON.stringify(context.field)}: it was sealed for another connection or field, or altered`,
      );
    }
  }

  /** True when `sealed` was sealed under a key other than the first: reseal it to finish a rotation. */
  needsResealing(sealed: string): boolean {
    const { keyId } = parse(sealed);
    this.#keyFor(keyId);
    return keyId !== this.#primary.id;
  }

  /** `sealed` opened and sealed again under the first key (with a new nonce). */
  reseal(sealed: string, context: SealingContext): string {
    return this.seal(this.open(sealed, context), context);
  }

  #keyFor(id: string): KeyObject {
    const key = this.#keys.get(id);
    if (key === undefined) {
      throw new GatehouseError(
        'secrets.key_unknown',
        `a secret is sealed under key id ${id}, which is not among ${KEYS_SETTING}: put back the key it was sealed with`,
      );
    }
    return key;
  }
}

function toSealingKey(base64: string): SealingKey {
  const bytes = Buffer.from(base64, 'base64');
  const id = createHash('sha256').update(bytes).digest('hex').slice(0, 8);
  const key = createSecretKey(bytes);
  bytes.fill(0);
  return { id, key };
}

/**
 * Unambiguous (a JSON array, so no name can run into the next) and covering the header too:
 * the version and key id cannot be swapped under a valid tag.
 */
function associatedData(keyId: string, context: SealingContext): Buffer {
  if (context.connection === '' || context.field === '') {
    throw new GatehouseError('secrets.context_invalid', 'a secret is sealed for a named connection and field');
  }
  return Buffer.from(JSON.stringify([VERSION, keyId, context.connection, context.field]), 'utf8');
}

interface SealedParts {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

function parse(sealed: string): SealedParts {
  if (typeof sealed !== 'string' || sealed.length > MAX_SEALED_CHARS)
    throw invalid('it is not a string of a sealed size');
  const pieces = sealed.split('.');
  if (pieces.length !== 4) throw invalid('it does not have four parts separated by dots');
  const [version, keyId, nonceText, bodyText] = pieces as [string, string, string, string];
  if (version !== VERSION) throw invalid(`its version is not ${VERSION}`);
  if (!KEY_ID.test(keyId)) throw invalid('its key id is not 8 lowercase hex digits');
  const nonce = decodeBase64Url(nonceText);
  if (nonce?.length !== NONCE_BYTES) throw invalid(`its nonce is not ${NONCE_BYTES} bytes of base64url`);
  const body = decodeBase64Url(bodyText);
  if (body === undefined || body.length <= TAG_BYTES)
    throw invalid('its ciphertext is not base64url holding a secret and a tag');
  return {
    keyId,
    nonce,
    ciphertext: body.subarray(0, body.length - TAG_BYTES),
    tag: body.subarray(body.length - TAG_BYTES),
  };
}

/** Strict: only the spelling `seal` writes (Node's decoder skips characters it does not know). */
function decodeBase64Url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function invalid(reason: string): GatehouseError {
  return new GatehouseError('secrets.sealed_invalid', `a sealed secret is malformed: ${reason}`);
}
