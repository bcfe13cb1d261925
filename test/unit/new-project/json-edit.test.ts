import { expect } from 'chai';
import { setJsonValues, setOrAddJsonValues } from '../../../scripts/new-project/json-edit.mjs';

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

  describe('adding the keys a document lacks', () => {
    it('adds a section as the last member of its parent, on a line of its own like the first, as a one-line object', () => {
      const edited = setOrAddJsonValues(DOCUMENT, [
        { path: ['A', 'C', 'Migrate'], value: true },
        { path: ['A', 'D', 'E', 'Enabled'], value: 'yes' },
      ]);
      expect(edited).to.equal(
        DOCUMENT.replace(
          '"B": { "Enabled": true, "Name": "Cookies" }\n',
          '"B": { "Enabled": true, "Name": "Cookies" },\n    "C": { "Migrate": true },\n    "D": { "E": { "Enabled": "yes" } }\n',
        ),
      );
    });

    it('adds a key to an object written on one line, on that line, and to an empty object', () => {
      expect(setOrAddJsonValues(DOCUMENT, [{ path: ['A', 'B', 'Port'], value: 5432 }])).to.equal(
        DOCUMENT.replace('"Name": "Cookies" }', '"Name": "Cookies", "Port": 5432 }'),
      );
      expect(setOrAddJsonValues('{"A": {}}\n', [{ path: ['A', 'B'], value: false }])).to.equal(
        '{"A": { "B": false }}\n',
      );
    });

    it('sets a key that is there, in place, and adds into a section it added before', () => {
      const edited = setOrAddJsonValues(DOCUMENT, [
        { path: ['Enabled'], value: true },
        { path: ['C', 'One'], value: 1 },
        { path: ['C', 'Two'], value: 2 },
      ]);
      expect(edited).to.equal(
        DOCUMENT.replace('"Enabled": false\n}', '"Enabled": true,\n  "C": { "One": 1, "Two": 2 }\n}'),
      );
    });

    it('refuses a path through a value that is not an object, naming it', () => {
      expect(() => setOrAddJsonValues(DOCUMENT, [{ path: ['A', 'Enabled', 'X'], value: false }])).to.throw(
        'A:Enabled:X cannot be added: A:Enabled is not an object',
      );
    });
  });
});
