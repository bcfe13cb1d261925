import { expect } from 'chai';
import { setJsonValues } from '../../../scripts/new-project/json-edit.mjs';

const DOCUMENT = `{
  "A": {
    "Enabled": true,
    "Tricky": "a \\"quoted\\" } ] , value",
    "List": ["x", { "Enabled": true }],
    "B": { "Enabled": true, "Name": "Cookies" }
  },
  "Enabled": false
}
`;

describe('new project: editing JSON without touching its layout', () => {
  it('sets nested values and changes nothing else', () => {
    const edited = setJsonValues(DOCUMENT, [
      { path: ['A', 'B', 'Enabled'], value: false },
      { path: ['A', 'B', 'Name'], value: 'OpenIdConnect' },
      { path: ['Enabled'], value: true },
    ]);
    expect(edited).to.equal(
      DOCUMENT.replace(
        '"B": { "Enabled": true, "Name": "Cookies" }',
        '"B": { "Enabled": false, "Name": "OpenIdConnect" }',
      ).replace('"Enabled": false\n}', '"Enabled": true\n}'),
    );
  });

  it('finds a key after strings holding braces, brackets and commas, and nested arrays', () => {
    const edited = setJsonValues(DOCUMENT, [{ path: ['A', 'B', 'Enabled'], value: false }]);
    expect(JSON.parse(edited)).to.deep.equal({
      ...JSON.parse(DOCUMENT),
      A: { ...JSON.parse(DOCUMENT).A, B: { Enabled: false, Name: 'Cookies' } },
    });
  });

  it('refuses a path that is not in the document, naming it', () => {
    expect(() => setJsonValues(DOCUMENT, [{ path: ['A', 'C', 'Enabled'], value: false }])).to.throw(
      'A:C:Enabled is not in the document',
    );
    expect(() => setJsonValues(DOCUMENT, [{ path: ['A', 'Enabled', 'X'], value: false }])).to.throw(
      'A:Enabled:X is not in the document',
    );
  });
});
