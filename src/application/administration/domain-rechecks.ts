import { checkTxtAnswer, type RecordPrefixes } from '../../domain/connections/domain-verification.js';
import type { ConnectionRegistry } from '../connections/connection-registry.js';
import type { AuditLog } from '../ports/audit-log.js';
import {
  isCatalogUnavailable,
  type CatalogEntry,
  type ConnectionCatalog,
  type DeclareEntry,
} from '../ports/connection-catalog.js';
import type { Logger } from '../ports/logger.js';
import type { TxtRecords } from '../ports/txt-records.js';
import { isWildcard, proofAfterCheck, recordFor } from './domain-proofs.js';

export interface DomainRechecksParts {
  catalog: ConnectionCatalog;
  registry: ConnectionRegistry;
  declare: DeclareEntry;
  txtRecords: TxtRecords;
  audit: AuditLog;
  logger: Logger;
  now: () => number;
  prefixes: RecordPrefixes;
  /** `Administration:DomainRecheckSeconds`: a verified domain's record is looked up again this long after the last look. */
  intervalMs: number;
  missesBeforeUnverified: number;
}

/** Entries re-checked per round: a round's DNS traffic stays bounded however many customers there are. */
const ENTRIES_PER_ROUND = 200;

/**
 * The periodic re-check of verified domains: each verified domain's record is looked up
 * again once its last look is `intervalMs` old; found, it is confirmed; missing at
 * `missesBeforeUnverified` checks in a row, it stops routing (audited `domain.unverified`,
 * and a warning in the log), because the domain was sold or the customer left. A look-up
 * the DNS does not answer changes nothing. Each entry is written back at the version it
 * was read at: with several instances, one writes and the others' writes are refused and
 * dropped (the next round finds the domain checked), so one instance's result is kept.
 */
export class DomainRechecks {
  constructor(private readonly parts: DomainRechecksParts) {}

  /** Re-checks what is due now; how many domains were looked up. */
  async round(): Promise<number> {
    const { catalog, now, intervalMs } = this.parts;
    const due = await catalog.dueForRecheck(now() - intervalMs, ENTRIES_PER_ROUND);
    let looked = 0;
    for (const entry of due) looked += await this.#recheck(entry);
    return looked;
  }

  /** Runs a round every `everyMs` (unref'd: it keeps no process alive); returns the stop. */
  start(everyMs: number): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.round()
        .catch((error: unknown) => {
          if (!isCatalogUnavailable(error)) this.parts.logger.error({}, 'the domains re-check failed');
        })
        .finally(() => {
          running = false;
        });
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  async #recheck(entry: CatalogEntry): Promise<number> {
    const { now, intervalMs, prefixes, missesBeforeUnverified } = this.parts;
    const before = now() - intervalMs;
    let looked = 0;
    const events = [];
    const domains = [];
    for (const proof of entry.domains) {
      const due =
        proof.verifiedAt !== undefined &&
        !isWildcard(proof.domain) &&
        (proof.checkedAt === undefined || proof.checkedAt < before);
      const record = due ? recordFor(proof.domain, entry.domains, prefixes) : undefined;
      if (!record) {
        domains.push(proof);
        continue;
      }
      looked += 1;
      const outcome = checkTxtAnswer(await this.parts.txtRecords.lookup(record.name), record.value);
      const checked = proofAfterCheck(proof, outcome, now(), missesBeforeUnverified);
      domains.push(checked.proof);
      events.push(...checked.events);
    }
    if (looked === 0) return 0;
    const outcome = await this.parts.catalog.put({ name: entry.name, keys: entry.keys, domains }, entry.version, now());
    if (outcome.kind !== 'written') return looked;
    const origin = this.parts.catalog.originOf(entry.name);
    this.parts.registry.apply([{ kind: 'declared', declaration: await this.parts.declare(outcome.entry, origin) }]);
    const organization = typeof entry.keys.Organization === 'string' ? entry.keys.Organization : undefined;
    for (const event of events) {
      if (event.type !== 'domain.unverified') continue;
      this.parts.audit.record({
        type: 'domain.unverified',
        actor: 'system',
        connection: entry.name,
        organization,
        domain: event.domain,
        count: event.misses,
      });
      this.parts.logger.warn(
        { connection: entry.name, domain: event.domain, misses: event.misses },
        'a domain no longer routes: its TXT record was missing at every re-check in a row',
      );
    }
    return looked;
  }
}
