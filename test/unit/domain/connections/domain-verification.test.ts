import { expect } from 'chai';
import {
  afterCheck,
  checkTxtAnswer,
  unverifiedDomain,
  verificationRecord,
  type CheckOutcome,
  type DomainVerification,
  type TxtAnswer,
  type VerificationRecord,
} from '../../../../src/domain/connections/domain-verification.js';

const TOKEN = 'k3Jq9VxP2mW7tR4sYb8nLc';
const VALUE = `gatehouse-domain-verification=${TOKEN}`;

function recordOf(domain: string, token = TOKEN): VerificationRecord {
  const record = verificationRecord(domain, token);
  if ('problem' in record) throw new Error(`no record for ${domain}: ${record.problem}`);
  return record;
}

describe('domain verification: the record to publish', () => {
  const records: ReadonlyArray<[input: string, name: string, domain: string]> = [
    ['example.com', '_gatehouse-challenge.example.com', 'example.com'],
    ['Example.COM.', '_gatehouse-challenge.example.com', 'example.com'],
    ['  eu.example.com ', '_gatehouse-challenge.eu.example.com', 'eu.example.com'],
    ['*.example.com', '_gatehouse-challenge.example.com', '*.example.com'],
    ['Bücher.example', '_gatehouse-challenge.xn--bcher-kva.example', 'xn--bcher-kva.example'],
  ];
  for (const [input, name, domain] of records) {
    it(`${JSON.stringify(input)} is proved at ${name}`, () => {
      expect(verificationRecord(input, TOKEN)).to.deep.equal({ domain, name, value: VALUE });
    });
  }

  it('takes other prefixes for the name and the value', () => {
    expect(
      verificationRecord('example.com', TOKEN, { namePrefix: '_acme-sso', valuePrefix: 'acme-sso=' }),
    ).to.deep.equal({ domain: 'example.com', name: '_acme-sso.example.com', value: `acme-sso=${TOKEN}` });
  });

  const refused: ReadonlyArray<[label: string, domain: string, token: string, prefixes: object, problem: string]> = [
    ['no domain', '', TOKEN, {}, 'domain'],
    ['an IP address', '192.0.2.1', TOKEN, {}, 'domain'],
    ['a bare label', 'localhost', TOKEN, {}, 'domain'],
    ['a wildcard in the middle', 'eu.*.example.com', TOKEN, {}, 'domain'],
    ['a name that smuggles another', 'example.com/.evil.test', TOKEN, {}, 'domain'],
    ['a short, guessable token', 'example.com', 'abc', {}, 'token'],
    ['a token with a space (two strings in a zone file)', 'example.com', `${TOKEN} x`, {}, 'token'],
    ['a token with a quote', 'example.com', `${TOKEN}"`, {}, 'token'],
    ['a name prefix of two labels', 'example.com', TOKEN, { namePrefix: 'a.b' }, 'prefix'],
    ['an empty value prefix', 'example.com', TOKEN, { valuePrefix: '' }, 'prefix'],
  ];
  for (const [label, domain, token, prefixes, problem] of refused) {
    it(`refuses ${label}`, () => {
      expect(verificationRecord(domain, token, prefixes)).to.deep.equal({ problem });
    });
  }
});

describe('domain verification: checking a TXT answer', () => {
  const answers: ReadonlyArray<[label: string, answer: TxtAnswer, outcome: CheckOutcome]> = [
    ['the record alone', { kind: 'answered', records: [[VALUE]] }, 'found'],
    [
      'the record among others (SPF, another service)',
      { kind: 'answered', records: [['v=spf1 -all'], [VALUE], ['x=1']] },
      'found',
    ],
    [
      'the record split in chunks, as a long TXT value arrives',
      { kind: 'answered', records: [[VALUE.slice(0, 20), VALUE.slice(20)]] },
      'found',
    ],
    [
      'the value spread over two records',
      { kind: 'answered', records: [[VALUE.slice(0, 20)], [VALUE.slice(20)]] },
      'missing',
    ],
    [
      'another token',
      { kind: 'answered', records: [['gatehouse-domain-verification=AAAAAAAAAAAAAAAAAAAAAA']] },
      'missing',
    ],
    ['the token in another letter case', { kind: 'answered', records: [[VALUE.toLowerCase()]] }, 'missing'],
    [
      'the prefix in another letter case',
      { kind: 'answered', records: [[VALUE.replace('gatehouse', 'Gatehouse')]] },
      'missing',
    ],
    ['the value with something after it', { kind: 'answered', records: [[`${VALUE} `]] }, 'missing'],
    ['the value with something before it', { kind: 'answered', records: [[`x${VALUE}`]] }, 'missing'],
    [
      'the value chunked with a space between',
      { kind: 'answered', records: [[VALUE.slice(0, 20), ' ', VALUE.slice(20)]] },
      'missing',
    ],
    ['the token alone, without the prefix', { kind: 'answered', records: [[TOKEN]] }, 'missing'],
    ['an answer without records', { kind: 'answered', records: [] }, 'missing'],
    ['no such name (NXDOMAIN) or no TXT there (NODATA)', { kind: 'none' }, 'missing'],
    ['a look-up that timed out', { kind: 'failed', reason: 'ETIMEOUT' }, 'unknown'],
    ['a look-up the resolver failed (SERVFAIL)', { kind: 'failed', reason: 'ESERVFAIL' }, 'unknown'],
  ];
  for (const [label, answer, outcome] of answers) {
    it(`${label}: ${outcome}`, () => {
      expect(checkTxtAnswer(answer, VALUE)).to.equal(outcome);
    });
  }
});

describe('domain verification: the state of a domain through its checks', () => {
  const T0 = Date.UTC(2026, 10, 1);
  const HOUR = 3_600_000;

  /** Runs checks one hour apart from T0, returning the last state and every event. */
  function run(outcomes: CheckOutcome[], misses?: number) {
    let verification: DomainVerification = unverifiedDomain(recordOf('*.example.com'));
    const events: unknown[] = [];
    outcomes.forEach((outcome, index) => {
      const next = afterCheck(verification, outcome, T0 + index * HOUR, misses);
      verification = next.verification;
      events.push(...next.events);
    });
    return { verification, events };
  }

  const verifiedAtT0 = { domain: '*.example.com', state: 'verified', verifiedAt: T0 };
  const journeys: ReadonlyArray<[label: string, outcomes: CheckOutcome[], state: object, events: object[]]> = [
    ['a new domain routes nobody', [], { domain: '*.example.com', state: 'unverified' }, []],
    ['a miss leaves it unverified', ['missing', 'missing'], { state: 'unverified' }, []],
    ['a failed check leaves it unverified', ['unknown'], { state: 'unverified' }, []],
    [
      'a check that finds the record verifies it',
      ['found'],
      { ...verifiedAtT0, confirmedAt: T0, misses: 0 },
      [{ type: 'domain.verified', domain: '*.example.com', at: T0 }],
    ],
    [
      'verified after earlier misses, at the time of the check that found it',
      ['missing', 'found'],
      { state: 'verified', verifiedAt: T0 + HOUR, misses: 0 },
      [{ type: 'domain.verified', domain: '*.example.com', at: T0 + HOUR }],
    ],
    [
      're-checks that find it keep it verified, since the first time',
      ['found', 'found', 'found'],
      { ...verifiedAtT0, confirmedAt: T0 + 2 * HOUR, misses: 0 },
      [{ type: 'domain.verified', domain: '*.example.com', at: T0 }],
    ],
    [
      'two misses in a row keep it verified',
      ['found', 'missing', 'missing'],
      { ...verifiedAtT0, confirmedAt: T0, misses: 2 },
      [{ type: 'domain.verified' }],
    ],
    [
      'the third miss in a row un-verifies it',
      ['found', 'missing', 'missing', 'missing'],
      { domain: '*.example.com', state: 'unverified' },
      [
        { type: 'domain.verified' },
        { type: 'domain.unverified', domain: '*.example.com', at: T0 + 3 * HOUR, misses: 3 },
      ],
    ],
    [
      'a find between misses starts the count again',
      ['found', 'missing', 'missing', 'found', 'missing', 'missing'],
      { state: 'verified', confirmedAt: T0 + 3 * HOUR, misses: 2 },
      [{ type: 'domain.verified' }],
    ],
    [
      'failed checks are not misses, however many',
      ['found', 'unknown', 'unknown', 'unknown', 'unknown'],
      { ...verifiedAtT0, confirmedAt: T0, misses: 0 },
      [{ type: 'domain.verified' }],
    ],
    [
      'failed checks between misses neither count nor clear them',
      ['found', 'missing', 'unknown', 'missing', 'unknown', 'missing'],
      { state: 'unverified' },
      [{ type: 'domain.verified' }, { type: 'domain.unverified', at: T0 + 5 * HOUR, misses: 3 }],
    ],
    [
      'once un-verified, a check that finds the record verifies it again, anew',
      ['found', 'missing', 'missing', 'missing', 'found'],
      { state: 'verified', verifiedAt: T0 + 4 * HOUR, misses: 0 },
      [{ type: 'domain.verified' }, { type: 'domain.unverified' }, { type: 'domain.verified', at: T0 + 4 * HOUR }],
    ],
  ];
  for (const [label, outcomes, state, events] of journeys) {
    it(`${label} (${outcomes.join(', ') || 'no check'})`, () => {
      const result = run(outcomes);
      expect(result.verification).to.deep.include(state);
      expect(result.events).to.have.length(events.length);
      events.forEach((event, index) => expect(result.events[index]).to.deep.include(event));
    });
  }

  const thresholds: ReadonlyArray<[misses: number, outcomes: CheckOutcome[], state: string]> = [
    [1, ['found', 'missing'], 'unverified'],
    [5, ['found', 'missing', 'missing', 'missing', 'missing'], 'verified'],
    [5, ['found', 'missing', 'missing', 'missing', 'missing', 'missing'], 'unverified'],
  ];
  for (const [misses, outcomes, state] of thresholds) {
    it(`with ${misses} misses allowed, ${outcomes.length - 1} in a row leave it ${state}`, () => {
      expect(run(outcomes, misses).verification.state).to.equal(state);
    });
  }

  for (const misses of [0, -1, 1.5, Number.NaN]) {
    it(`refuses ${misses} as the number of misses`, () => {
      expect(() => run(['found'], misses)).to.throw(RangeError);
    });
  }

  it('never puts the token in an event or a state', () => {
    const { verification, events } = run(['found', 'missing', 'missing', 'missing']);
    expect(JSON.stringify({ verification, events })).not.to.include(TOKEN);
  });
});
