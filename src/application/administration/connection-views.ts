import type { CatalogEntry } from '../ports/connection-catalog.js';
import type { Connection } from '../../domain/connections/connection.js';
import type { RecordPrefixes } from '../../domain/connections/domain-verification.js';
import { isVerified, recordFor } from './domain-proofs.js';

/** One domain as the API shows it: whether it routes, since when, and the record that proves it. */
export interface DomainView {
  domain: string;
  /** `operator`: a domain of the configuration or of a hand-written file, trusted as its writer's word. */
  verified: boolean | 'operator';
  verifiedAt: string | null;
  record: { type: 'TXT'; name: string; value: string } | null;
}

/** A connection as the API answers it: its keys without any secret (the names of those set instead), and its version. */
export interface ConnectionView {
  name: string;
  /** Absent for the operator's connections: only the API's have versions. */
  version?: number;
  /** `api`: written through the API (it may change it); `operator`: the configuration's or a hand-written file's (read-only here). */
  managedBy: 'api' | 'operator';
  /** `in-force`, `disabled` (Enabled false), or `refused` (its declaration broke a rule: the registry kept the earlier version, if any). */
  state: 'in-force' | 'disabled' | 'refused';
  keys: Record<string, unknown>;
  /** The secret keys that hold a value: write-only, never shown. */
  secretsSet: string[];
  domains: DomainView[];
  updatedAt?: string;
}

export function entryView(
  entry: CatalogEntry,
  secretKeys: readonly string[],
  state: ConnectionView['state'],
  prefixes: RecordPrefixes,
): ConnectionView {
  const keys: Record<string, unknown> = {};
  const secretsSet: string[] = [];
  for (const [key, value] of Object.entries(entry.keys)) {
    if (secretKeys.includes(key)) secretsSet.push(key);
    else keys[key] = value;
  }
  const domains = Array.isArray(entry.keys.Domains) ? (entry.keys.Domains as string[]) : [];
  return {
    name: entry.name,
    version: entry.version,
    managedBy: 'api',
    state,
    keys,
    secretsSet,
    domains: domains.map((domain) => domainView(domain, entry, prefixes)),
    updatedAt: new Date(entry.updatedAt).toISOString(),
  };
}

export function domainView(domain: string, entry: CatalogEntry, prefixes: RecordPrefixes): DomainView {
  const base = domain.startsWith('*.') ? domain.slice(2) : domain;
  const verifiedAt = entry.domains.find((proof) => proof.domain === base)?.verifiedAt;
  const record = recordFor(domain, entry.domains, prefixes);
  return {
    domain,
    verified: isVerified(domain, entry.domains),
    verifiedAt: verifiedAt === undefined ? null : new Date(verifiedAt).toISOString(),
    record: record ? { type: 'TXT', name: record.name, value: record.value } : null,
  };
}

/** An operator's connection (configuration, hand-written file): what it sets, secrets aside; its domains the operator's word. */
export function operatorView(connection: Connection, secretKeys: readonly string[]): ConnectionView {
  const settings = connection.settings as unknown as Record<string, unknown>;
  const keys: Record<string, unknown> = {
    Protocol: connection.protocol.key,
    Organization: connection.organization,
    DisplayName: connection.displayName,
    Domains: [...connection.domains],
  };
  const secretsSet: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (key === 'Enabled' || key === 'Scheme' || key === 'DisplayName') continue;
    if (secretKeys.includes(key)) {
      if (typeof value === 'string' && value !== '') secretsSet.push(key);
    } else keys[key] = value;
  }
  return {
    name: connection.name,
    managedBy: 'operator',
    state: 'in-force',
    keys,
    secretsSet,
    domains: connection.domains.map((domain) => ({ domain, verified: 'operator', verifiedAt: null, record: null })),
  };
}
