import { expect } from 'chai';
import { DomainOwners } from '../../../../src/domain/connections/domain-owners.js';

/** Owners holding each pattern, claimed in order. */
function ownersOf(held: Record<string, string>): DomainOwners<string> {
  const owners = new DomainOwners<string>();
  for (const [pattern, owner] of Object.entries(held)) expect(owners.claim(pattern, owner)).to.equal(undefined);
  return owners;
}

describe('DomainOwners: who holds an e-mail domain', () => {
  const owners = ownersOf({
    'acme.com': 'acme',
    '*.globex.com': 'globex',
    'initech.com': 'initech',
    '*.eu.initech.com': 'initech-eu',
  });

  describe('ownerOf', () => {
    const cases: ReadonlyArray<[domain: string, owner: string | undefined]> = [
      ['acme.com', 'acme'],
      // An exact domain holds that domain only.
      ['eu.acme.com', undefined],
      // A wildcard covers subdomains at any depth ...
      ['eu.globex.com', 'globex'],
      ['a.b.c.globex.com', 'globex'],
      // ... never its base, and never a name that merely ends the same way.
      ['globex.com', undefined],
      ['notglobex.com', undefined],
      ['globex.com.evil.example', undefined],
      ['initech.com', 'initech'],
      ['eu.initech.com', undefined],
      ['paris.eu.initech.com', 'initech-eu'],
      ['unknown.example', undefined],
    ];
    for (const [domain, owner] of cases) {
      it(`${domain} is held by ${String(owner)}`, () => {
        expect(owners.ownerOf(domain)).to.equal(owner);
      });
    }

    it('prefers an exact entry to a wildcard above it (the nearest holder)', () => {
      const nested = ownersOf({ '*.example.com': 'wide', 'team.example.com': 'team', '*.eu.example.com': 'eu' });
      expect(nested.ownerOf('team.example.com')).to.equal('team');
      expect(nested.ownerOf('x.eu.example.com')).to.equal('eu');
      expect(nested.ownerOf('other.example.com')).to.equal('wide');
    });
  });

  describe('covers: the same rule for one pattern', () => {
    const cases: ReadonlyArray<[pattern: string, domain: string, covered: boolean]> = [
      ['acme.com', 'acme.com', true],
      ['acme.com', 'eu.acme.com', false],
      ['*.acme.com', 'eu.acme.com', true],
      ['*.acme.com', 'a.b.acme.com', true],
      ['*.acme.com', 'acme.com', false],
      ['*.acme.com', 'evilacme.com', false],
    ];
    for (const [pattern, domain, covered] of cases) {
      it(`${pattern} ${covered ? 'covers' : 'does not cover'} ${domain}`, () => {
        expect(DomainOwners.covers(pattern, domain)).to.equal(covered);
        // And ownerOf agrees.
        expect(ownersOf({ [pattern]: 'o' }).ownerOf(domain)).to.equal(covered ? 'o' : undefined);
      });
    }
  });

  describe('claim and release', () => {
    it('refuses a pattern held already, naming its holder, and changes nothing', () => {
      const held = ownersOf({ 'acme.com': 'acme', '*.acme.com': 'acme' });
      expect(held.claim('acme.com', 'evil')).to.equal('acme');
      expect(held.claim('*.acme.com', 'evil')).to.equal('acme');
      expect(held.ownerOf('acme.com')).to.equal('acme');
      expect(held.ownerOf('eu.acme.com')).to.equal('acme');
    });

    it('keeps a domain and its wildcard apart: releasing one leaves the other', () => {
      const held = ownersOf({ 'acme.com': 'acme', '*.acme.com': 'acme' });
      held.release('*.acme.com');
      expect(held.ownerOf('eu.acme.com')).to.equal(undefined);
      expect(held.ownerOf('acme.com')).to.equal('acme');
      held.release('acme.com');
      expect(held.ownerOf('acme.com')).to.equal(undefined);
    });
  });

  describe('overlapping: a pattern that would share a domain with a held one', () => {
    const held = ownersOf({ 'team.example.com': 'team', '*.eu.example.com': 'eu', 'acme.com': 'acme' });
    const cases: ReadonlyArray<[pattern: string, overlaps: string | undefined]> = [
      // A wildcard over a held domain, or over a held wildcard, at any depth.
      ['*.example.com', 'team'],
      ['*.eu.example.com', 'eu'],
      // A wildcard under a held wildcard, and a domain under it.
      ['*.paris.eu.example.com', 'eu'],
      ['paris.eu.example.com', 'eu'],
      ['team.example.com', 'team'],
      // The base of a held wildcard is not covered by it; a wildcard never covers its base.
      ['eu.example.com', undefined],
      ['*.acme.com', undefined],
      ['other.example.com', undefined],
      ['*.other.example.com', undefined],
    ];
    for (const [pattern, overlaps] of cases) {
      it(`${pattern} overlaps ${String(overlaps)}`, () => {
        expect(held.overlapping(pattern)).to.equal(overlaps);
      });
    }

    it("looks past the candidate's own patterns for another holder", () => {
      const two = ownersOf({ 'a.example.com': 'a', 'b.example.com': 'b' });
      expect(two.overlapping('*.example.com', (owner) => owner === 'a')).to.equal('b');
      expect(two.overlapping('a.example.com', (owner) => owner === 'a')).to.equal(undefined);
    });
  });
});
