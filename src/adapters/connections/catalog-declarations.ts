import type { DeferredDeclaration } from '../../application/connections/deferred-declarations.js';
import type { CatalogEntry, DeclareEntry } from '../../application/ports/connection-catalog.js';
import type { SecretSealing } from '../../application/ports/secret-sealing.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { error, type SettingsProblem } from '../../domain/settings/problem.js';
import type { SectionReader } from './connection-section.js';

/** The same as DeclareEntry, at once: a lookup that reaches an entry not checked yet declares it there and then. */
export type DeclareEntryNow = (entry: CatalogEntry, origin: string) => ConnectionDeclaration;

/**
 * How a catalog's entry becomes the declaration the registry reads, in either store: its
 * sealed secrets opened (bound to the connection and the key, so a value copied elsewhere
 * does not open), its keys read by the same section reader as a file's, and the domains its
 * owner proved through DNS attached (the others route nobody). A secret that does not open
 * (no key, another key, altered, or written in the clear by hand) is a problem of its key:
 * the declaration is refused and the version in force, if any, stays.
 */
export function catalogDeclarations(reader: SectionReader, sealing: SecretSealing | undefined): DeclareEntry {
  const declare = catalogDeclarationsNow(reader, sealing);
  return async (entry, origin) => declare(entry, origin);
}

/** catalogDeclarations, synchronous: a catalog's entry names no file to wait for. */
export function catalogDeclarationsNow(reader: SectionReader, sealing: SecretSealing | undefined): DeclareEntryNow {
  // In any letter case and of any type: the reader takes `clientsecret` or a number for
  // ClientSecret, so a value written by hand that way must open like any other.
  const secretFields = new Map<string, string>();
  for (const secretKey of reader.secretKeys)
    if (!secretFields.has(secretKey.toLowerCase())) secretFields.set(secretKey.toLowerCase(), secretKey);
  return (entry, origin) => {
    const connection = entry.name.toLowerCase();
    const problems: SettingsProblem[] = [];
    const keys: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entry.keys)) {
      const field = secretFields.get(key.toLowerCase());
      if (field === undefined || value === '' || value === null) {
        keys[key] = value;
        continue;
      }
      if (sealing === undefined) {
        problems.push(
          error(`${origin}:${key}`, 'is sealed, and Administration:EncryptionKeys lists no key to open it'),
        );
        continue;
      }
      try {
        if (typeof value !== 'string') throw new TypeError('not a sealed value');
        keys[key] = sealing.open(value, { connection, field });
      } catch {
        problems.push(
          error(
            `${origin}:${key}`,
            'does not open with Administration:EncryptionKeys: it was sealed under a key no longer listed, for another connection, altered, or written in the clear (give secrets through the administration API)',
          ),
        );
      }
    }
    // A catalog's connection gives its secrets through the API, sealed: it names no file to read them from.
    const declaration = reader.readWithoutFiles(entry.name, keys, origin);
    return {
      ...declaration,
      problems: [...problems, ...declaration.problems],
      verifiedDomains: entry.domains.filter((proof) => proof.verifiedAt !== undefined).map((proof) => proof.domain),
    };
  };
}

/**
 * An entry as a declaration the registry checks later (ConnectionRegistry.defer). An entry
 * `declare` fails on is declared refused by its origin, as a catalog's read declares it.
 */
export function deferredCatalogDeclaration(
  entry: CatalogEntry,
  origin: string,
  declare: DeclareEntryNow,
): DeferredDeclaration {
  return {
    name: entry.name,
    origin,
    keys: entry.keys,
    provedDomains: entry.domains.flatMap((proof) => (proof.verifiedAt === undefined ? [] : [proof.domain])),
    declare: () => {
      try {
        return declare(entry, origin);
      } catch {
        return { name: entry.name, origin, section: {}, problems: [error(origin, 'could not be read')] };
      }
    },
  };
}
