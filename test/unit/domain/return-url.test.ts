import { expect } from 'chai';
import { isLocalUrl, validateReturnUrl } from '../../../src/domain/return-url.js';

/** Values an attacker could put in `returnUrl`; every one must be refused. */
const hostile: ReadonlyArray<[label: string, value: string]> = [
  ['empty', ''],
  ['whitespace only', '  '],
  ['protocol-relative', '//evil.example'],
  ['protocol-relative with path', '//evil.example/path'],
  ['triple slash', '///evil.example'],
  ['slash backslash', '/\\evil.example'],
  ['slash backslash slash', '/\\/evil.example'],
  ['double backslash (UNC)', '\\\\evil.example'],
  ['backslash slash', '\\/evil.example'],
  ['just //', '//'],
  ['just /\\', '/\\'],
  ['https absolute', 'https://evil.example'],
  ['http absolute', 'http://evil.example'],
  ['upper-case scheme', 'HTTPS://evil.example'],
  ['scheme without slashes', 'https:evil.example'],
  ['scheme with one slash', 'https:/evil.example'],
  ['file scheme', 'file:///etc/passwd'],
  ['javascript scheme', 'javascript:alert(1)'],
  ['mixed-case javascript scheme', 'JavaScript:alert(1)'],
  ['data scheme', 'data:text/html,<script>alert(1)</script>'],
  ['vbscript scheme', 'vbscript:msgbox(1)'],
  ['mailto scheme', 'mailto:someone@evil.example'],
  ['bare host', 'evil.example'],
  ['bare host with path', 'evil.example/path'],
  ['dot-dot then //', '..//evil'],
  ['parent-relative', '../evil'],
  ['dot-relative', './a'],
  ['relative path', 'a/b'],
  ['query only', '?a=b'],
  ['fragment only', '#f'],
  ['percent-encoded //', '%2F%2Fevil.example'],
  ['leading space', ' /leading-space'],
  ['leading space before //', ' //evil.example'],
  ['leading tab before //', '\t//evil.example'],
  ['leading CRLF', '\r\n/a'],
  ['leading NUL', '\u0000/a'],
  // Browsers drop tab/CR/LF inside URLs, turning these into //evil.example.
  ['tab after slash', '/\t/evil.example'],
  ['newline after slash', '/\n/evil.example'],
  ['carriage return after slash', '/\r/evil.example'],
  ['header injection', '/a\r\nSet-Cookie: x=y'],
  ['NUL in path', '/\u0000evil'],
  ['SOH in path', '/a\u0001'],
  ['ESC in path', '/a\u001B[31m'],
  ['DEL in path', '/a\u007F'],
  ['C1 NEL in path', '/a\u0085'],
  ['C1 APC in path', '/a\u009F'],
  ['tilde alone', '~'],
  ['tilde without slash', '~evil.example'],
  ['tilde double slash', '~//evil.example'],
  ['tilde slash backslash', '~/\\evil.example'],
  ['tilde double slash alone', '~//'],
  ['tilde path with tab', '~/a\tb'],
  ['tilde path with NUL', '~/\u0000'],
  // Fullwidth solidus (U+FF0F) and division slash (U+2215) are not '/': nothing starts with '/'.
  ['fullwidth solidus pair', '\uFF0F\uFF0Fevil.example'],
  ['single fullwidth solidus', '\uFF0Fevil'],
  ['division slash pair', '\u2215\u2215evil.example'],
];

/** Values that stay on this origin; the rule must accept them. */
const local: ReadonlyArray<[label: string, value: string]> = [
  ['root', '/'],
  ['one segment', '/a'],
  ['with query', '/a?b=c'],
  ['with fragment', '/a#f'],
  ['app root', '~/'],
  ['app-relative path', '~/a'],
  ['double slash later in the path', '/a/b//c'],
  ['backslash later in the path', '/a\\b'],
  ['absolute URL inside the query is just text', '/a?next=https://evil.example'],
  ['space inside the path (not a control character)', '/ /x'],
  ['dot then host-like text', '/.evil.example'],
  ['at-sign then host-like text', '/@evil.example'],
  // Literal percent text: the rule never decodes, and neither does the browser when resolving
  // a path, so this is the path "/%09/evil.example" on this origin (ASP.NET also accepts it).
  ['percent-encoded tab is literal text', '/%09/evil.example'],
  ['percent-encoded slashes are literal text', '/%2F%2Fevil.example'],
  // Rule fidelity: U+FF0F is not '/', and browsers percent-encode it in a path
  // (/%EF%BC%8Fevil) rather than normalising it to '/', so it stays on this origin.
  ['fullwidth solidus after a real slash', '/\uFF0Fevil'],
  // U+2028 is category Zl, not Cc, so ASP.NET's char.IsControl does not flag it.
  ['line separator is not a control character', '/a\u2028b'],
];

describe('isLocalUrl', () => {
  it('covers at least 45 hostile and 10 local values', () => {
    expect(hostile.length).to.be.at.least(45);
    expect(local.length).to.be.at.least(10);
  });

  for (const [label, value] of hostile) {
    it(`refuses ${label}: ${JSON.stringify(value)}`, () => {
      expect(isLocalUrl(value)).to.equal(false);
    });
  }

  for (const [label, value] of local) {
    it(`accepts ${label}: ${JSON.stringify(value)}`, () => {
      expect(isLocalUrl(value)).to.equal(true);
    });
  }

  // Independent check that the rule and a WHATWG URL parser (what browsers use) agree:
  // every accepted value resolves to a URL on the application's own origin.
  for (const [label, value] of local) {
    it(`keeps ${label} on this origin when a browser resolves it`, () => {
      const resolved = new URL(validateReturnUrl(value), 'https://app.example/some/page');
      expect(resolved.origin).to.equal('https://app.example');
    });
  }
});

describe('validateReturnUrl', () => {
  const cases: ReadonlyArray<[input: string | undefined, expected: string]> = [
    [undefined, '/'],
    ['', '/'],
    ['/', '/'],
    ['/account?tab=keys#top', '/account?tab=keys#top'],
    ['~/', '/'],
    ['~/reports/1', '/reports/1'],
    ['//evil.example', '/'],
    ['https://evil.example', '/'],
    ['~//evil.example', '/'],
  ];
  for (const [input, expected] of cases) {
    it(`maps ${JSON.stringify(input)} to ${JSON.stringify(expected)}`, () => {
      expect(validateReturnUrl(input)).to.equal(expected);
    });
  }

  it('maps every hostile value to /', () => {
    const escaped = hostile.filter(([, value]) => validateReturnUrl(value) !== '/');
    expect(escaped).to.deep.equal([]);
  });

  it('returns a local path that starts with / (never ~) for every local value', () => {
    for (const [, value] of local) {
      const result = validateReturnUrl(value);
      expect(result.startsWith('/'), value).to.equal(true);
      expect(isLocalUrl(result), value).to.equal(true);
    }
  });

  it('continues with the fallback instead of / when the value is not local, and never with a fallback that is not local', () => {
    expect(validateReturnUrl('https://evil.example', '/portal')).to.equal('/portal');
    expect(validateReturnUrl(undefined, '~/portal')).to.equal('/portal');
    expect(validateReturnUrl('/reports', '/portal')).to.equal('/reports');
    const escaped = hostile.filter(([, value]) => validateReturnUrl(value, value) !== '/');
    expect(escaped).to.deep.equal([]);
  });
});
