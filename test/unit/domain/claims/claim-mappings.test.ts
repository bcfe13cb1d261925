import { expect } from 'chai';
import { social2 } from '../../../../src/adapters/amazon/social2.js';
import { social3 } from '../../../../src/adapters/github/social3.js';
import { openIdConnect } from '../../../../src/adapters/oidc/open-id-connect.js';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import { effectiveClaimMappings } from '../../../../src/domain/claims/claim-mappings.js';
import { APPLICATION_CLAIM_PREFIX } from '../../../../src/domain/claims/claim-types.js';

describe("each provider's built-in claim mappings", () => {
  for (const { key, claimMappings } of builtInProviders) {
    it(`maps ${key} only onto application claim types (so normalization stays idempotent)`, () => {
      const outside = claimMappings.filter((row) => !row.target.startsWith(APPLICATION_CLAIM_PREFIX));
      expect(outside).to.deep.equal([]);
    });
    it(`maps ${key} to a subject`, () => {
      expect(claimMappings.some((row) => row.target === 'application:subject' && !row.fallback)).to.equal(true);
    });
  }
});

describe('effectiveClaimMappings', () => {
  it('is the built-in table when nothing is configured', () => {
    expect(effectiveClaimMappings(social2.claimMappings)).to.deep.equal(social2.claimMappings);
  });

  it('adds a configured row for a new source', () => {
    const rows = effectiveClaimMappings(social2.claimMappings, { hd: 'application:group' });
    expect(rows).to.deep.include({ source: 'hd', target: 'application:group' });
    expect(rows).to.have.length(social2.claimMappings.length + 1);
  });

  it('replaces the built-in row for the same source', () => {
    const rows = effectiveClaimMappings(openIdConnect.claimMappings, { email: 'application:name' });
    expect(rows.filter((row) => row.source === 'email')).to.deep.equal([
      { source: 'email', target: 'application:name' },
    ]);
  });

  it('turns a built-in fallback row into a primary row when configured', () => {
    const rows = effectiveClaimMappings(social3.claimMappings, { login: 'application:name' });
    expect(rows.filter((row) => row.source === 'login')).to.deep.equal([
      { source: 'login', target: 'application:name' },
    ]);
  });
});
