import { expect } from 'chai';
import { isGatehouseError } from '../../../src/domain/errors.js';
import { SCIM_ERROR_SCHEMA, ScimError, type ScimType } from '../../../src/domain/directory/scim-error.js';

describe('ScimError', () => {
  const keywords: Array<[ScimType, number, string]> = [
    ['invalidFilter', 400, 'scim.invalid_filter'],
    ['tooMany', 400, 'scim.too_many'],
    ['uniqueness', 409, 'scim.uniqueness'],
    ['mutability', 400, 'scim.mutability'],
    ['invalidSyntax', 400, 'scim.invalid_syntax'],
    ['invalidPath', 400, 'scim.invalid_path'],
    ['noTarget', 400, 'scim.no_target'],
    ['invalidValue', 400, 'scim.invalid_value'],
    ['invalidVers', 400, 'scim.invalid_vers'],
    ['sensitive', 400, 'scim.sensitive'],
  ];
  for (const [scimType, status, code] of keywords) {
    it(`${scimType} answers ${status} with code ${code}`, () => {
      const error = new ScimError(scimType, 'Plain words.');
      expect({ status: error.status, scimType: error.scimType, code: error.code }).to.deep.equal({
        status,
        scimType,
        code,
      });
    });
  }

  it('a status without a keyword has no scimType, and a code of its own', () => {
    const notFound = new ScimError(404, 'No User of this organization has that id.');
    expect([notFound.status, notFound.scimType, notFound.code]).to.deep.equal([404, undefined, 'scim.not_found']);
    expect(new ScimError(412, 'x').code).to.equal('scim.precondition_failed');
    expect(new ScimError(413, 'x').code).to.equal('scim.too_large');
  });

  it('is a GatehouseError whose message may be shown', () => {
    const error = new ScimError('invalidValue', 'userName is required.');
    expect(isGatehouseError(error)).to.equal(true);
    expect(error.safe).to.equal(true);
    expect(error.message).to.equal('userName is required.');
  });

  it('body() is the RFC 7644 3.12 error response, status as a string', () => {
    expect(new ScimError('uniqueness', 'Taken.').body()).to.deep.equal({
      schemas: [SCIM_ERROR_SCHEMA],
      status: '409',
      scimType: 'uniqueness',
      detail: 'Taken.',
    });
    expect(new ScimError(404, 'Gone.').body()).to.deep.equal({
      schemas: [SCIM_ERROR_SCHEMA],
      status: '404',
      detail: 'Gone.',
    });
  });
});
