import { Resolver } from 'node:dns/promises';
import type { TxtAnswer } from '../../domain/connections/domain-verification.js';
import type { TxtRecords } from '../../application/ports/txt-records.js';

/** The resolver to ask and how long to wait for it. */
export interface DnsTxtRecordsOptions {
  /** `host` or `host:port` of recursive resolvers; the system's (`/etc/resolv.conf`) when absent. */
  servers?: readonly string[];
  /** How long one look-up may take, in milliseconds, whatever the resolver does. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 2000;
// NXDOMAIN and NODATA: the resolver answered, and there is no record.
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);
// Lets c-ares report its own ETIMEOUT before the backstop below fires.
const BACKSTOP_GRACE_MS = 50;

/**
 * TXT look-ups through Node's resolver (c-ares), which follows CNAME chains. One try per
 * look-up: a periodic re-check tries again later anyway, and an outage must cost a caller
 * `timeoutMs`, not a multiple of it.
 */
export class DnsTxtRecords implements TxtRecords {
  private readonly resolver: Resolver;
  private readonly timeoutMs: number;

  constructor(options: DnsTxtRecordsOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.resolver = new Resolver({ timeout: this.timeoutMs, tries: 1 });
    if (options.servers !== undefined) this.resolver.setServers([...options.servers]);
  }

  async lookup(name: string): Promise<TxtAnswer> {
    // c-ares asks the next server after one times out: the backstop keeps the whole look-up
    // within `timeoutMs` however many servers there are.
    let backstop: NodeJS.Timeout | undefined;
    const deadline = new Promise<TxtAnswer>((resolve) => {
      backstop = setTimeout(() => resolve({ kind: 'failed', reason: 'ETIMEOUT' }), this.timeoutMs + BACKSTOP_GRACE_MS);
      backstop.unref();
    });
    try {
      return await Promise.race([this.resolve(name), deadline]);
    } finally {
      clearTimeout(backstop);
    }
  }

  private async resolve(name: string): Promise<TxtAnswer> {
    try {
      return { kind: 'answered', records: await this.resolver.resolveTxt(name) };
    } catch (error) {
      const code = errorCode(error);
      if (code === undefined) throw error;
      return NO_RECORD.has(code) ? { kind: 'none' } : { kind: 'failed', reason: code };
    }
  }
}

/** The `code` of a DNS error (`ETIMEOUT`, `ESERVFAIL`, `ECONNREFUSED` ...), if it has one. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
