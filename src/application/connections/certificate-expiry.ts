import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import type { Connection } from '../../domain/connections/connection.js';
import { isGatehouseError } from '../../domain/errors.js';
import type { AuditLog } from '../ports/audit-log.js';
import type { Clock } from '../ports/clock.js';
import type { ProviderSigningCertificate } from '../ports/identity-provider.js';
import type { Logger } from '../ports/logger.js';
import type { SessionStore } from '../ports/session-store.js';
import type { ConnectionAdapters } from './connection-adapters.js';

/** A signing certificate as the API and the portal show it. */
export interface CertificateView {
  subject: string;
  /** The end of its validity (ISO 8601). */
  notAfter: string;
  /** Days until then, rounded up (0 or less: expired). */
  daysLeft: number;
}

/** A connection's earliest certificate within this many days is warned about in the log and the audit. */
export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 24 * 60 * 60_000;
/** How often the connections in use are looked at again (each adapter refreshes its keys hourly on use). */
export const CERTIFICATE_CHECK_MS = 60 * 60_000;

export interface CertificateExpiryDeps {
  adapters: ConnectionAdapters;
  /** The signed-in store: the day's warning is claimed there, once across every instance. */
  store: SessionStore;
  audit: AuditLog;
  logger: Logger;
  clock: Clock;
}

/**
 * The expiry of each connection's signing certificates (the identity provider's, as its
 * adapter reads its metadata or key set): shown by the administration API and the setup
 * portal, exported as the seconds until each connection's earliest one expires
 * (`gatehouse.connection.certificate.expiry`), and, within EXPIRY_WARNING_DAYS, warned about
 * in the log and the audit once per connection per day (claimed in the shared store, so
 * once across instances). Only connections whose adapter is in use here are looked at on
 * the hour: no identity provider is contacted to fill a gauge; the API and the portal read a
 * connection's on demand, through its adapter (which fetches nothing it holds already).
 */
export class CertificateExpiry {
  /** Each connection's earliest end of validity as last read, by id: what the gauge reports. */
  readonly #earliest = new Map<string, { name: string; notAfter: number }>();

  constructor(private readonly deps: CertificateExpiryDeps) {
    deps.adapters.registry.onEvent((event) => {
      // A changed connection may have another identity provider: read again before it is reported.
      if (event.kind === 'removed' || event.kind === 'changed') this.#earliest.delete(event.connection.id);
    });
  }

  /**
   * The signing certificates of the connection in force named `name` (any letter case),
   * soonest expiring first; undefined when none is in force (or, when `organization` is
   * given, none of that organization's). Fails with the `idp.*` error of an identity
   * provider whose keys cannot be read.
   */
  async of(name: string, organization?: string): Promise<CertificateView[] | undefined> {
    const connection = this.deps.adapters.registry.byName(name);
    if (!connection || (organization !== undefined && connection.organization !== organization)) return undefined;
    const certificates = await this.#read(connection, this.deps.adapters.adapterFor(connection));
    const now = this.deps.clock.now();
    return [...certificates]
      .sort((a, b) => a.notAfter - b.notAfter)
      .map(({ subject, notAfter }) => ({
        subject,
        notAfter: new Date(notAfter).toISOString(),
        daysLeft: daysLeft(notAfter, now),
      }));
  }

  /** Seconds until the earliest certificate of each connection read so far expires (negative: expired), by its name. */
  secondsLeft(): Array<{ connection: string; seconds: number }> {
    const now = this.deps.clock.now();
    return [...this.#earliest.values()].map(({ name, notAfter }) => ({
      connection: name,
      seconds: Math.round((notAfter - now) / 1000),
    }));
  }

  /** Reads the certificates of every connection whose adapter is in use here; one that fails is skipped (its adapter logged why). */
  async check(): Promise<void> {
    // Those in force now: a connection whose adapter is built was checked.
    for (const connection of [...this.deps.adapters.registry.inForce()]) {
      const adapter = this.deps.adapters.builtAdapterOf(connection);
      if (adapter) await this.#read(connection, adapter).catch(() => undefined);
    }
  }

  /** Checks now and every CERTIFICATE_CHECK_MS while the instance listens; returns the stop. */
  start(intervalMs = CERTIFICATE_CHECK_MS): () => void {
    const run = () => void this.check();
    const timer = setInterval(run, intervalMs);
    timer.unref();
    const first = setTimeout(run, 0);
    first.unref();
    return () => {
      clearInterval(timer);
      clearTimeout(first);
    };
  }

  async #read(
    connection: Connection,
    adapter: Promise<{ signingCertificates?(): Promise<readonly ProviderSigningCertificate[]> }>,
  ): Promise<readonly ProviderSigningCertificate[]> {
    const provider = await adapter;
    const certificates = (await provider.signingCertificates?.()) ?? [];
    const earliest = Math.min(...certificates.map((certificate) => certificate.notAfter));
    if (!Number.isFinite(earliest)) {
      this.#earliest.delete(connection.id);
      return certificates;
    }
    // Only while it is still the connection in force: a read that outlived a change says nothing of the new one.
    if (this.deps.adapters.registry.byName(connection.id)?.fingerprint === connection.fingerprint) {
      this.#earliest.set(connection.id, { name: connection.name, notAfter: earliest });
      await this.#warnIfExpiring(connection, earliest);
    }
    return certificates;
  }

  async #warnIfExpiring(connection: Connection, notAfter: number): Promise<void> {
    const now = this.deps.clock.now();
    const days = daysLeft(notAfter, now);
    if (days > EXPIRY_WARNING_DAYS) return;
    const day = new Date(now).toISOString().slice(0, 10);
    let first: boolean;
    try {
      first = await this.deps.store.create(warningKey(connection, day), {}, DAY_MS + 60 * 60_000);
    } catch (error) {
      this.deps.logger.warn(
        { connection: connection.name, code: isGatehouseError(error) ? error.code : 'internal_error.unexpected' },
        "a connection's certificate expiry could not be checked against today's warning",
      );
      return;
    }
    if (!first) return;
    this.deps.logger.warn(
      {
        connection: connection.name,
        organization: connection.organization,
        daysLeft: days,
        notAfter: new Date(notAfter).toISOString(),
      },
      days > 0
        ? `a connection's signing certificate expires in ${days} days: its identity provider must publish a new one before then`
        : "a connection's signing certificate has expired: its identity provider must publish a new one",
    );
    this.deps.audit.record({
      type: 'connection.certificate_expiring',
      provider: connection.name,
      connection: connection.name,
      organization: connection.organization,
      count: Math.max(0, days),
    });
  }
}

function daysLeft(notAfter: number, now: number): number {
  return Math.ceil((notAfter - now) / DAY_MS) || 0;
}

/** The day's warning of one connection: a hash, so that no organization's name is a key name. */
function warningKey(connection: Connection, day: string): string {
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${connection.organization}\n${connection.id}`)));
  return `certificate-warning:${hash.slice(0, 40)}:${day}`;
}
