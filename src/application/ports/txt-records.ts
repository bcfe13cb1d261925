import type { TxtAnswer } from '../../domain/connections/domain-verification.js';

/**
 * TXT records as DNS answers for one name, through a resolver that follows CNAMEs. No such
 * name and a name without TXT records (NXDOMAIN, NODATA) are both `none`; a look-up that got
 * no answer (time-out, SERVFAIL, refused) is `failed` with a short reason code, never thrown.
 */
export interface TxtRecords {
  lookup(name: string): Promise<TxtAnswer>;
}

export const TxtRecordsToken = Symbol('TxtRecords');
