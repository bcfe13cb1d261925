import { expect } from 'chai';
import {
  isVerified,
  proofAfterCheck,
  proofsAfterWrite,
  recordFor,
} from '../../../../src/application/administration/domain-proofs.js';
import type { DomainProof } from '../../../../src/application/ports/connection-catalog.js';

const TOKEN = 'k3Jq9VxP2mW7tR4sYb8nLc';
const OTHER_TOKEN = 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3S';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

/** A proof of `domain`: unverified unless `verifiedAt` is given. */
function proof(domain: string, extra: Partial<DomainProof> = {}): DomainProof {
  return { domain, token: TOKEN, misses: 0, ...extra };
}

/** Hands out `fresh-1`, `fresh-2` ... and counts the calls. */
function tokens(): { next: () => string; count: () => number } {
  let drawn = 0;
  return { next: () => `fresh-token-${(drawn += 1)}-AAAAAAAAAA`, count: () => drawn };
}

describe('domain proofs: after a write', () => {
  it('keeps the token and the verification of a domain the write keeps', () => {
    const verified = proof('example.com', { verifiedAt: T0, checkedAt: T0 + DAY, misses: 1 });
    const drawn = tokens();
    expect(proofsAfterWrite(['example.com'], [verified], drawn.next)).to.deep.equal([verified]);
    expect(drawn.count()).to.equal(0);
  });

  it('gives a domain the write adds a fresh token of its own, unverified, and keeps the others', () => {
    const verified = proof('example.com', { verifiedAt: T0 });
    const drawn = tokens();
    const after = proofsAfterWrite(['example.com', 'acme.test', 'globex.test'], [verified], drawn.next);
    expect(after).to.deep.equal([
      verified,
      { domain: 'acme.test', token: 'fresh-token-1-AAAAAAAAAA', misses: 0 },
      { domain: 'globex.test', token: 'fresh-token-2-AAAAAAAAAA', misses: 0 },
    ]);
  });

  it('drops the proof of a domain the write no longer lists', () => {
    const after = proofsAfterWrite(
      ['acme.test'],
      [proof('example.com', { verifiedAt: T0 }), proof('acme.test', { token: OTHER_TOKEN })],
      tokens().next,
    );
    expect(after).to.deep.equal([proof('acme.test', { token: OTHER_TOKEN })]);
  });

  it('gives a wildcard no token (its base domain proves it), and draws none for it', () => {
    const drawn = tokens();
    expect(proofsAfterWrite(['*.example.com'], [], drawn.next)).to.deep.equal([
      { domain: '*.example.com', token: '', misses: 0 },
    ]);
    expect(drawn.count()).to.equal(0);
  });

  it('does not carry a proof over to a domain of another spelling (the write gives normalized ones)', () => {
    const after = proofsAfterWrite(['eu.example.com'], [proof('example.com', { verifiedAt: T0 })], tokens().next);
    expect(after).to.have.length(1);
    expect(after[0]).to.not.have.property('verifiedAt');
    expect(after[0]?.token).to.equal('fresh-token-1-AAAAAAAAAA');
  });
});

describe('domain proofs: the record that proves a domain', () => {
  it("is the domain's own record, from its own token", () => {
    expect(recordFor('example.com', [proof('example.com')], {})).to.deep.equal({
      domain: 'example.com',
      name: '_gatehouse-challenge.example.com',
      value: `gatehouse-domain-verification=${TOKEN}`,
    });
  });

  it("is its base domain's record for a wildcard, named for the wildcard", () => {
    const proofs = [proof('example.com'), proof('*.example.com', { token: '' })];
    expect(recordFor('*.example.com', proofs, {})).to.deep.equal({
      domain: '*.example.com',
      name: '_gatehouse-challenge.example.com',
      value: `gatehouse-domain-verification=${TOKEN}`,
    });
  });

  it('is none for a wildcard whose base domain is not among the proofs', () => {
    expect(recordFor('*.example.com', [proof('*.example.com', { token: '' })], {})).to.equal(undefined);
    // Another domain's token never stands in for the missing base.
    expect(
      recordFor('*.example.com', [proof('other.example.com'), proof('*.example.com', { token: '' })], {}),
    ).to.equal(undefined);
  });

  it('is none for a domain without a proof, or whose token is not one of ours', () => {
    expect(recordFor('example.com', [proof('acme.test')], {})).to.equal(undefined);
    expect(recordFor('example.com', [proof('example.com', { token: '' })], {})).to.equal(undefined);
    expect(recordFor('example.com', [proof('example.com', { token: 'short' })], {})).to.equal(undefined);
  });

  it("takes the deployment's prefixes", () => {
    expect(
      recordFor('example.com', [proof('example.com')], { namePrefix: '_acme-sso', valuePrefix: 'acme-sso=' }),
    ).to.deep.equal({ domain: 'example.com', name: '_acme-sso.example.com', value: `acme-sso=${TOKEN}` });
  });
});

describe('domain proofs: whether a domain routes', () => {
  const cases: ReadonlyArray<[label: string, domain: string, proofs: DomainProof[], verified: boolean]> = [
    ['a domain proved', 'example.com', [proof('example.com', { verifiedAt: T0 })], true],
    ['a domain not proved yet', 'example.com', [proof('example.com')], false],
    ['a domain without a proof at all', 'example.com', [proof('acme.test', { verifiedAt: T0 })], false],
    [
      'a wildcard whose base is proved',
      '*.example.com',
      [proof('example.com', { verifiedAt: T0 }), proof('*.example.com', { token: '' })],
      true,
    ],
    [
      'a wildcard whose base is not proved',
      '*.example.com',
      [proof('example.com'), proof('*.example.com', { token: '' })],
      false,
    ],
    [
      'a wildcard carrying a verification of its own, its base unproved',
      '*.example.com',
      [proof('example.com'), proof('*.example.com', { token: '', verifiedAt: T0 })],
      false,
    ],
    ['a wildcard without its base', '*.example.com', [proof('*.example.com', { token: '' })], false],
  ];
  for (const [label, domain, proofs, verified] of cases) {
    it(`${verified ? 'routes' : 'does not route'}: ${label}`, () => {
      expect(isVerified(domain, proofs)).to.equal(verified);
    });
  }
});

describe('domain proofs: after a check', () => {
  const at = T0 + 10 * DAY;
  const unverified = proof('example.com', { checkedAt: T0 });
  const verified = (misses: number) => proof('example.com', { verifiedAt: T0, checkedAt: T0 + DAY, misses });

  it('verifies an unverified domain whose record is found, and says so', () => {
    expect(proofAfterCheck(unverified, 'found', at, 3)).to.deep.equal({
      proof: { domain: 'example.com', token: TOKEN, verifiedAt: at, checkedAt: at, misses: 0 },
      events: [{ type: 'domain.verified', domain: 'example.com', at }],
    });
  });

  it('leaves an unverified domain unverified when its record is missing, noting the look', () => {
    expect(proofAfterCheck(unverified, 'missing', at, 3)).to.deep.equal({
      proof: { domain: 'example.com', token: TOKEN, checkedAt: at, misses: 0 },
      events: [],
    });
  });

  it('confirms a verified domain whose record is found, clearing its misses and keeping when it was verified', () => {
    expect(proofAfterCheck(verified(2), 'found', at, 3)).to.deep.equal({
      proof: { domain: 'example.com', token: TOKEN, verifiedAt: T0, checkedAt: at, misses: 0 },
      events: [],
    });
  });

  it('counts a miss of a verified domain, which still routes', () => {
    const { proof: after, events } = proofAfterCheck(verified(0), 'missing', at, 3);
    expect(after).to.deep.equal({ domain: 'example.com', token: TOKEN, verifiedAt: T0, checkedAt: at, misses: 1 });
    expect(events).to.deep.equal([]);
    expect(isVerified('example.com', [after])).to.equal(true);
  });

  it('un-verifies at the N-th miss in a row, not before, and says so with the count', () => {
    const second = proofAfterCheck(verified(1), 'missing', at, 3);
    expect(second.proof).to.include({ verifiedAt: T0, misses: 2 });
    expect(second.events).to.deep.equal([]);
    const third = proofAfterCheck(second.proof, 'missing', at + DAY, 3);
    expect(third.proof).to.deep.equal({ domain: 'example.com', token: TOKEN, checkedAt: at + DAY, misses: 0 });
    expect(third.events).to.deep.equal([{ type: 'domain.unverified', domain: 'example.com', at: at + DAY, misses: 3 }]);
    expect(isVerified('example.com', [third.proof])).to.equal(false);
  });

  it('un-verifies at the first miss when one is all the deployment allows', () => {
    const { proof: after, events } = proofAfterCheck(verified(0), 'missing', at, 1);
    expect(after).to.not.have.property('verifiedAt');
    expect(events.map((event) => event.type)).to.deep.equal(['domain.unverified']);
  });

  it('changes nothing but the time of the look when the DNS did not answer, verified or not', () => {
    expect(proofAfterCheck(verified(2), 'unknown', at, 3)).to.deep.equal({
      proof: { ...verified(2), checkedAt: at },
      events: [],
    });
    expect(proofAfterCheck(unverified, 'unknown', at, 3)).to.deep.equal({
      proof: { ...unverified, checkedAt: at },
      events: [],
    });
  });
});
