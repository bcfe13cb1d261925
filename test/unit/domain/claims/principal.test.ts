import { expect } from 'chai';
import { ClaimTypes } from '../../../../src/domain/claims/claim-types.js';
import { claimValues, displayName, findClaim, type Principal } from '../../../../src/domain/claims/principal.js';

function principal(...pairs: Array<[type: string, value: string]>): Principal {
  return { scheme: 'OpenIdConnect', claims: pairs.map(([type, value]) => ({ type, value, issuer: 'OpenIdConnect' })) };
}

describe('claimValues', () => {
  const user = principal([ClaimTypes.Role, 'Reader'], [ClaimTypes.Name, 'Ada'], [ClaimTypes.Role, 'Writer']);
  const cases: ReadonlyArray<[type: string, expected: string[]]> = [
    [ClaimTypes.Role, ['Reader', 'Writer']],
    [ClaimTypes.Name, ['Ada']],
    [ClaimTypes.Email, []],
    ['APPLICATION:ROLE', []], // claim types match exactly
  ];
  for (const [type, expected] of cases) {
    it(`returns ${JSON.stringify(expected)} for ${type}`, () => {
      expect(claimValues(user, type)).to.deep.equal(expected);
    });
  }
});

describe('findClaim', () => {
  it('returns the first value of the type', () => {
    expect(findClaim(principal([ClaimTypes.Role, 'A'], [ClaimTypes.Role, 'B']), ClaimTypes.Role)).to.equal('A');
  });
  it('returns undefined when the type is absent', () => {
    expect(findClaim(principal([ClaimTypes.Role, 'A']), ClaimTypes.Email)).to.equal(undefined);
  });
});

describe('displayName', () => {
  const cases: ReadonlyArray<[label: string, user: Principal, expected: string | undefined]> = [
    ['name first', principal([ClaimTypes.Subject, 's'], [ClaimTypes.Email, 'e@x'], [ClaimTypes.Name, 'Ada']), 'Ada'],
    ['email without a name', principal([ClaimTypes.Subject, 's'], [ClaimTypes.Email, 'e@x']), 'e@x'],
    ['subject as the last resort', principal([ClaimTypes.Subject, 's']), 's'],
    ['provider claims are not application claims', principal(['name', 'Raw']), undefined],
    ['nothing at all', principal(), undefined],
  ];
  for (const [label, user, expected] of cases) {
    it(`uses ${label}`, () => {
      expect(displayName(user)).to.equal(expected);
    });
  }
});
