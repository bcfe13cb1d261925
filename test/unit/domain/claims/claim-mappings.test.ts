import { expect } from 'chai';
import { builtInClaimMappings, effectiveClaimMappings } from '../../../../src/domain/claims/claim-mappings.js';
import { APPLICATION_CLAIM_PREFIX } from '../../../../src/domain/claims/claim-types.js';
import { providerKeys } from '../../../../src/domain/settings/settings.js';

describe('builtInClaimMappings', () => {
  for (const provider of providerKeys) {
    it(`maps ${provider} only onto application claim types (so normalization stays idempotent)`, () => {
      const outside = builtInClaimMappings[provider].filter((row) => !row.target.startsWith(APPLICATION_CLAIM_PREFIX));
      expect(outside).to.deep.equal([]);
    });
    it(`maps ${provider} to a subject`, () => {
      expect(
        builtInClaimMappings[provider].some((row) => row.target === 'application:subject' && !row.fallback),
      ).to.equal(true);
    });
  }
});

describe('effectiveClaimMappings', () => {
  it('is the built-in table when nothing is configured', () => {
    expect(effectiveClaimMappings('Social2')).to.deep.equal(builtInClaimMappings.Social2);
  });

  it('adds a configured row for a new source', () => {
    const rows = effectiveClaimMappings('Social2', { hd: 'application:group' });
    expect(rows).to.deep.include({ source: 'hd', target: 'application:group' });
    expect(rows).to.have.length(builtInClaimMappings.Social2.length + 1);
  });

  it('replaces the built-in row for the same source', () => {
    const rows = effectiveClaimMappings('OpenIdConnect', { email: 'application:name' });
    expect(rows.filter((row) => row.source === 'email')).to.deep.equal([
      { source: 'email', target: 'application:name' },
    ]);
  });

  it('turns a built-in fallback row into a primary row when configured', () => {
    const rows = effectiveClaimMappings('Social3', { login: 'application:name' });
    expect(rows.filter((row) => row.source === 'login')).to.deep.equal([
      { source: 'login', target: 'application:name' },
    ]);
  });
});
