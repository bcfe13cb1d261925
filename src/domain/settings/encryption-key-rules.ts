import { error, keyOf, type SettingsProblem } from './problem.js';

/** The bytes of one key: AES-256 takes exactly 32. */
export const ENCRYPTION_KEY_BYTES = 32;

/**
 * The one spelling accepted: standard base64 with its padding, as `openssl rand -base64 32`
 * and `npx tsx scripts/new-encryption-key.ts` print it. 32 bytes are 43 characters and one
 * `=`; the last character before it carries 2 unused bits that must be zero, so that one key
 * has one spelling only (a decoder ignores those bits: without this rule the same key could
 * be listed twice under two spellings and pass the duplicate check).
 */
const CANONICAL_32_BYTES = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const encryptionKeyName = (index: number) => keyOf('Administration', 'EncryptionKeys', String(index));

/**
 * The rules for `Administration:EncryptionKeys`: each key is canonical base64 of exactly 32
 * bytes, and no key is listed twice. An empty list is no problem here: whether keys are
 * required depends on what is stored sealed, which the caller knows. Every problem names the
 * key's index, never its value, nor a part or a length-revealing echo of it.
 */
export function checkEncryptionKeys(values: readonly string[]): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const seen = new Map<string, number>();
  values.forEach((value, index) => {
    const name = encryptionKeyName(index);
    const problem = shapeProblem(value);
    if (problem !== undefined) {
      problems.push(error(name, problem));
      return;
    }
    const earlier = seen.get(value);
    if (earlier !== undefined) {
      problems.push(error(name, `is the same key as ${encryptionKeyName(earlier)}: list each key once`));
      return;
    }
    seen.set(value, index);
  });
  return problems;
}

function shapeProblem(value: string): string | undefined {
  if (CANONICAL_32_BYTES.test(value)) return undefined;
  if (value !== value.trim()) return 'has spaces or a line break around it: remove them';
  if (!BASE64.test(value)) {
    return 'is not base64 (A-Z, a-z, 0-9, + and /, padded with =): generate one with `npx tsx scripts/new-encryption-key.ts`';
  }
  if (decodedLength(value) !== ENCRYPTION_KEY_BYTES) {
    return `is not ${ENCRYPTION_KEY_BYTES} bytes once decoded: generate one with \`npx tsx scripts/new-encryption-key.ts\``;
  }
  return 'is not in canonical base64 (its last character before = has bits set that no encoder writes): generate one with `npx tsx scripts/new-encryption-key.ts`';
}

function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}
