import { expect } from 'chai';
import { ScimError, type ScimStatus, type ScimType } from '../../../src/domain/directory/scim-error.js';

/** Runs `action`, expects a ScimError of this status and keyword, and returns it for a look at its detail. */
export function expectScimError(action: () => unknown, status: ScimStatus, scimType: ScimType | undefined): ScimError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'a ScimError').to.be.instanceOf(ScimError);
  const error = thrown instanceof ScimError ? thrown : new ScimError(500, 'unreachable');
  expect({ status: error.status, scimType: error.scimType }).to.deep.equal({ status, scimType });
  return error;
}
