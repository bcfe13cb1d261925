import { isGatehouseError } from '../../domain/errors.js';
import type { CatalogEntry, ConnectionCatalog } from '../ports/connection-catalog.js';
import type { SecretSealing } from '../ports/secret-sealing.js';

export interface ReencryptParts {
  catalog: Pick<ConnectionCatalog, 'list' | 'get' | 'put'>;
  /** `Administration:EncryptionKeys`: the first key seals, every one opens. */
  sealing: SecretSealing;
  /** The connection keys whose values are stored sealed (`ClientSecret` ...). */
  secretKeys: readonly string[];
  now: () => number;
}

/** One entry's outcome: written again with every secret under the first key, or left as it was and why. */
export type ReencryptOutcome =
  | { kind: 'resealed'; connection: string; keys: string[]; version: number }
  | { kind: 'failed'; connection: string; problems: ReadonlyArray<{ key?: string; reason: string }> };

export interface ReencryptSummary {
  /** Entries read. */
  entries: number;
  resealed: number;
  /** Entries whose secrets were all under the first key already (or that hold none). */
  current: number;
  failed: number;
}

/** Entries read per page of the catalog. */
const PAGE = 100;

/**
 * Finishes a rotation of `Administration:EncryptionKeys` (`npm run connections:reencrypt`):
 * every stored secret sealed under a key other than the first is opened and sealed again
 * under the first, bound to the same connection and key, and its entry written back at the
 * version it was read at, so an administrator's write in between is never overwritten (the
 * entry is read again and resealed once more; a second conflict is reported). An entry is
 * written whole or not at all: one secret that does not open leaves the entry as it was,
 * and the others are done. Outcomes name connections and keys, never a value.
 */
export async function reencryptCatalog(
  parts: ReencryptParts,
  onOutcome: (outcome: ReencryptOutcome) => void = () => undefined,
): Promise<ReencryptSummary> {
  const summary: ReencryptSummary = { entries: 0, resealed: 0, current: 0, failed: 0 };
  let after: string | undefined;
  do {
    const page = await parts.catalog.list({ limit: PAGE, ...(after === undefined ? {} : { after }) });
    for (const entry of page.entries) {
      summary.entries += 1;
      const outcome = await reencryptEntry(parts, entry);
      if (outcome === undefined) {
        summary.current += 1;
        continue;
      }
      summary[outcome.kind] += 1;
      onOutcome(outcome);
    }
    after = page.next;
  } while (after !== undefined);
  return summary;
}

/** Undefined when nothing in the entry needs resealing (or it was removed meanwhile). */
async function reencryptEntry(parts: ReencryptParts, read: CatalogEntry): Promise<ReencryptOutcome | undefined> {
  let entry = read;
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    const resealed = resealedKeys(parts, entry);
    if ('problems' in resealed) return { kind: 'failed', connection: entry.name, problems: resealed.problems };
    if (resealed.keys.length === 0) return undefined;
    const outcome = await parts.catalog.put(
      { name: entry.name, keys: resealed.values, domains: entry.domains },
      entry.version,
      parts.now(),
    );
    if (outcome.kind === 'written')
      return { kind: 'resealed', connection: entry.name, keys: resealed.keys, version: outcome.entry.version };
    const again = await parts.catalog.get(entry.name);
    if (again === undefined) return undefined;
    entry = again;
  }
  return {
    kind: 'failed',
    connection: entry.name,
    problems: [{ reason: 'was changed by another writer twice while being resealed: run the command again' }],
  };
}

type Resealed =
  { values: Record<string, unknown>; keys: string[] } | { problems: Array<{ key: string; reason: string }> };

function resealedKeys({ sealing, secretKeys }: ReencryptParts, entry: CatalogEntry): Resealed {
  const values: Record<string, unknown> = { ...entry.keys };
  const keys: string[] = [];
  const problems: Array<{ key: string; reason: string }> = [];
  for (const key of secretKeys) {
    const sealed = entry.keys[key];
    if (typeof sealed !== 'string' || sealed === '') continue;
    // Bound to the connection's name in lower case and the key, as the API sealed it.
    const context = { connection: entry.name.toLowerCase(), field: key };
    try {
      if (!sealing.needsResealing(sealed)) continue;
      values[key] = sealing.seal(sealing.open(sealed, context), context);
      keys.push(key);
    } catch (error) {
      problems.push({ key, reason: whyNot(error) });
    }
  }
  return problems.length > 0 ? { problems } : { values, keys };
}

/** The sealer's refusal in words of our own: its codes, never its message's details. */
function whyNot(error: unknown): string {
  const code = isGatehouseError(error) ? error.code : '';
  switch (code) {
    case 'secrets.key_unknown':
      return 'is sealed under a key not among Administration:EncryptionKeys: put back the key it was sealed with';
    case 'secrets.open_failed':
      return 'does not open: it was sealed for another connection or key, or altered';
    case 'secrets.sealed_invalid':
      return 'is not a sealed value (written in the clear, or altered): give it again through the administration API';
    default:
      return 'could not be resealed';
  }
}
