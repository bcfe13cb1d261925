import type { ResolvedAddress } from '../../src/adapters/outbound/pinned-request.js';

/**
 * The network the outbound guard's tests play on loopback: 127.0.0.1 is "the internet",
 * 127.0.0.2 is "private", anything else is not in the test.
 */
export const loopbackIsPublic = (address: string) =>
  address === '127.0.0.1' ? undefined : address === '127.0.0.2' ? 'a private network address' : 'not in this test';

/** A resolver that answers from a table, one answer per call in turn (the last one repeated), and counts its calls. */
export function tableLookup(table: Record<string, string[][]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    const answer = answers[Math.min(calls.filter((name) => name === hostname).length, answers.length) - 1] ?? [];
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}
