import type { CatalogEntry, DomainProof } from '../../application/ports/connection-catalog.js';
import { isPlainObject } from '../config/canonicalize.js';

/**
 * The key a connection file written by the administration API carries beside the
 * connection's keys: that the API wrote it, its version, and its domains' DNS proofs. A
 * file without it was written by hand and is the operator's word, domains included; a
 * domain added by hand to a file with it has no proof and routes nobody until verified.
 */
export const CATALOG_MARK = '$catalog';
const WRITER = 'administration-api';

interface MarkedDomain {
  domain: string;
  token: string;
  verifiedAt?: string;
  checkedAt?: string;
  misses: number;
}

/** True when the file's JSON carries the administration API's mark. */
export function isCatalogFile(raw: unknown): raw is Record<string, unknown> {
  return isPlainObject(raw) && CATALOG_MARK in raw;
}

/** The entry a marked file holds; undefined when the mark is not one the API writes (a file edited by hand badly). */
export function entryOfFile(name: string, raw: Record<string, unknown>): CatalogEntry | undefined {
  const mark = raw[CATALOG_MARK];
  if (!isPlainObject(mark) || mark.writtenBy !== WRITER) return undefined;
  const { version, updatedAt, domains } = mark;
  if (!Number.isSafeInteger(version) || (version as number) < 1 || !isTime(updatedAt)) return undefined;
  if (!Array.isArray(domains) || !domains.every(isMarkedDomain)) return undefined;
  const keys = Object.fromEntries(Object.entries(raw).filter(([key]) => key !== CATALOG_MARK));
  return {
    name,
    keys,
    version: version as number,
    updatedAt: Date.parse(updatedAt),
    domains: domains.map(proofOf),
  };
}

/** The file the API writes for an entry: the connection's keys as a hand-written file has them, and the mark. */
export function fileOfEntry(entry: CatalogEntry): string {
  const mark = {
    writtenBy: WRITER,
    version: entry.version,
    updatedAt: new Date(entry.updatedAt).toISOString(),
    domains: entry.domains.map((proof): MarkedDomain => ({
      domain: proof.domain,
      token: proof.token,
      ...(proof.verifiedAt !== undefined ? { verifiedAt: new Date(proof.verifiedAt).toISOString() } : {}),
      ...(proof.checkedAt !== undefined ? { checkedAt: new Date(proof.checkedAt).toISOString() } : {}),
      misses: proof.misses,
    })),
  };
  return `${JSON.stringify({ ...entry.keys, [CATALOG_MARK]: mark }, null, 2)}\n`;
}

/** A time as the mark writes it: an entry read with another would answer its views with an invalid date (a 500). */
function isTime(field: unknown): field is string {
  return typeof field === 'string' && !Number.isNaN(Date.parse(field));
}

function isMarkedDomain(value: unknown): value is MarkedDomain {
  if (!isPlainObject(value)) return false;
  const time = (field: unknown) => field === undefined || isTime(field);
  return (
    typeof value.domain === 'string' &&
    typeof value.token === 'string' &&
    Number.isSafeInteger(value.misses) &&
    time(value.verifiedAt) &&
    time(value.checkedAt)
  );
}

function proofOf(marked: MarkedDomain): DomainProof {
  return {
    domain: marked.domain,
    token: marked.token,
    misses: marked.misses,
    ...(marked.verifiedAt !== undefined ? { verifiedAt: Date.parse(marked.verifiedAt) } : {}),
    ...(marked.checkedAt !== undefined ? { checkedAt: Date.parse(marked.checkedAt) } : {}),
  };
}
