import { expect } from 'chai';
import { DnsTxtRecords } from '../../../src/adapters/dns/dns-txt-records.js';
import {
  afterCheck,
  checkTxtAnswer,
  unverifiedDomain,
  verificationRecord,
  type DomainVerification,
  type DomainVerificationEvent,
  type VerificationRecord,
} from '../../../src/domain/connections/domain-verification.js';
import { LoopbackDns } from '../../support/loopback-dns.js';

const TOKEN = 'Zq4mR8tW2xV6bN1cK7pL3s';
const OTHER_TOKEN = 'Hy5dF9gJ0kA3sD7fG2hJ6k';
const TIMEOUT_MS = 300;

function recordOf(domain: string, token = TOKEN): VerificationRecord {
  const record = verificationRecord(domain, token);
  if ('problem' in record) throw new Error(`no record for ${domain}`);
  return record;
}

describe('DnsTxtRecords against a real DNS server on loopback', () => {
  let dns: LoopbackDns;
  let txt: DnsTxtRecords;
  beforeEach(async () => {
    dns = await LoopbackDns.start();
    txt = new DnsTxtRecords({ servers: [dns.address], timeoutMs: TIMEOUT_MS });
  });
  afterEach(() => dns.close());

  /** One check of `record` through the real resolver, from `current`. */
  async function check(record: VerificationRecord, current: DomainVerification, at: number) {
    return afterCheck(current, checkTxtAnswer(await txt.lookup(record.name), record.value), at);
  }

  it('verifies a domain once its record is published, and un-verifies it after three re-checks miss it', async () => {
    const record = recordOf('example.com');
    let state = unverifiedDomain(record);
    const events: DomainVerificationEvent[] = [];
    const step = async (at: number) => {
      const next = await check(record, state, at);
      state = next.verification;
      events.push(...next.events);
    };

    await step(1);
    expect(state.state, 'before the record is published').to.equal('unverified');

    dns.set(record.name, { txt: [['v=spf1 -all'], [record.value]] });
    await step(2);
    await step(3);
    expect(state).to.deep.equal({ domain: 'example.com', state: 'verified', verifiedAt: 2, confirmedAt: 3, misses: 0 });

    dns.remove(record.name);
    await step(4);
    await step(5);
    expect(state.state, 'after two misses').to.equal('verified');
    await step(6);
    expect(state).to.deep.equal({ domain: 'example.com', state: 'unverified' });
    expect(events).to.deep.equal([
      { type: 'domain.verified', domain: 'example.com', at: 2 },
      { type: 'domain.unverified', domain: 'example.com', at: 6, misses: 3 },
    ]);
    expect(dns.asked).to.deep.equal(Array(6).fill('_gatehouse-challenge.example.com'));
  });

  it('verifies a wildcard through its base domain', async () => {
    const record = recordOf('*.example.com');
    dns.set('_gatehouse-challenge.example.com', { txt: [[record.value]] });
    expect((await check(record, unverifiedDomain(record), 1)).verification.state).to.equal('verified');
  });

  it('joins a record that arrives split in character-strings, and refuses the value spread over two records', async () => {
    // A character-string holds at most 255 bytes; zone editors and DNS consoles also split
    // shorter values where they please.
    const record = recordOf('example.com');
    const [head, tail] = [record.value.slice(0, 30), record.value.slice(30)];
    dns.set(record.name, { txt: [[head, tail]] });
    expect(await txt.lookup(record.name)).to.deep.equal({ kind: 'answered', records: [[head, tail]] });
    expect(checkTxtAnswer(await txt.lookup(record.name), record.value)).to.equal('found');
    dns.set(record.name, { txt: [[head], [tail]] });
    expect(checkTxtAnswer(await txt.lookup(record.name), record.value)).to.equal('missing');
  });

  it('follows a CNAME chain to the record, as ACME does for delegated challenges', async () => {
    const record = recordOf('example.com');
    dns.set(record.name, { cname: 'example-com.challenges.dns-host.test' });
    dns.set('example-com.challenges.dns-host.test', { cname: 'final.dns-host.test' });
    dns.set('final.dns-host.test', { txt: [[record.value]] });
    expect((await check(record, unverifiedDomain(record), 1)).verification.state).to.equal('verified');
  });

  it('a CNAME chain that ends nowhere is no record', async () => {
    const record = recordOf('example.com');
    dns.set(record.name, { cname: 'gone.dns-host.test' });
    expect(await txt.lookup(record.name)).to.deep.equal({ kind: 'none' });
  });

  describe('a hostile customer claiming example.com without controlling its zone', () => {
    const record = recordOf('example.com');
    const lookAlikes: ReadonlyArray<[label: string, name: string, value: string]> = [
      ['the record under a zone of its own', '_gatehouse-challenge.example.com.evil.test', record.value],
      ['the record on a look-alike domain', '_gatehouse-challenge.examp1e.com', record.value],
      ['the record without the challenge label', 'example.com', record.value],
      ['the record on a sibling label', '_gatehouse-challenge-example.com', record.value],
    ];
    for (const [label, name, value] of lookAlikes) {
      it(`${label} (${name}) verifies nothing`, async () => {
        dns.set(name, { txt: [[value]] });
        const next = await check(record, unverifiedDomain(record), 1);
        expect(next.verification.state).to.equal('unverified');
        expect(next.events).to.deep.equal([]);
      });
    }

    it("another customer's token at the right name verifies nothing", async () => {
      dns.set(record.name, { txt: [[recordOf('example.com', OTHER_TOKEN).value]] });
      expect((await check(record, unverifiedDomain(record), 1)).verification.state).to.equal('unverified');
    });
  });

  it('NXDOMAIN and NODATA are both no record (a miss)', async () => {
    expect(await txt.lookup('_gatehouse-challenge.nowhere.test')).to.deep.equal({ kind: 'none' });
    dns.set('_gatehouse-challenge.empty.test', { txt: [] });
    expect(await txt.lookup('_gatehouse-challenge.empty.test')).to.deep.equal({ kind: 'none' });
  });

  it('a SERVFAIL is a failed check, not a miss', async () => {
    dns.set('_gatehouse-challenge.broken.test', { servfail: true });
    expect(await txt.lookup('_gatehouse-challenge.broken.test')).to.deep.equal({ kind: 'failed', reason: 'ESERVFAIL' });
  });

  it('a resolver that never answers is a failed check within the time-out, and leaves a verified domain verified', async () => {
    const record = recordOf('example.com');
    dns.set(record.name, { txt: [[record.value]] });
    let state = (await check(record, unverifiedDomain(record), 1)).verification;
    dns.neverAnswer();
    for (let at = 2; at <= 5; at += 1) {
      const started = performance.now();
      const answer = await txt.lookup(record.name);
      expect(performance.now() - started, 'time taken').to.be.lessThan(TIMEOUT_MS + 200);
      expect(answer).to.deep.equal({ kind: 'failed', reason: 'ETIMEOUT' });
      state = afterCheck(state, checkTxtAnswer(answer, record.value), at).verification;
    }
    expect(state).to.deep.include({ state: 'verified', misses: 0 });
  });

  it('two servers that never answer still cost one time-out, not two', async () => {
    const second = await LoopbackDns.start();
    try {
      dns.neverAnswer();
      second.neverAnswer();
      const both = new DnsTxtRecords({ servers: [dns.address, second.address], timeoutMs: TIMEOUT_MS });
      const started = performance.now();
      expect(await both.lookup('_gatehouse-challenge.example.com')).to.deep.equal({
        kind: 'failed',
        reason: 'ETIMEOUT',
      });
      expect(performance.now() - started).to.be.lessThan(TIMEOUT_MS + 200);
    } finally {
      await second.close();
    }
  });

  it('a resolver that is not there (port closed) is a failed check', async () => {
    const gone = await LoopbackDns.start();
    const address = gone.address;
    await gone.close();
    const nowhere = new DnsTxtRecords({ servers: [address], timeoutMs: TIMEOUT_MS });
    expect(await nowhere.lookup('_gatehouse-challenge.example.com')).to.deep.equal({
      kind: 'failed',
      reason: 'ECONNREFUSED',
    });
  });
});
