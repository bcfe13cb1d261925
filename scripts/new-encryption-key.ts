import { randomBytes } from 'node:crypto';
import { ENCRYPTION_KEY_BYTES } from '../src/domain/settings/encryption-key-rules.js';

/**
 * Prints one new key for ProjectTemplate:Administration:EncryptionKeys: 32 random bytes in
 * standard base64, the one spelling the setting accepts. It goes to standard output only, to
 * be put where secrets are kept (never in a file under version control).
 */
process.stdout.write(`${randomBytes(ENCRYPTION_KEY_BYTES).toString('base64')}\n`);
