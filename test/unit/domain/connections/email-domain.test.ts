import { expect } from 'chai';
import {
  emailDomain,
  normalizeDomain,
  normalizeDomainPattern,
} from '../../../../src/domain/connections/email-domain.js';

describe('email domains (connections)', () => {
  describe('normalizeDomain: one spelling per domain', () => {
    const same: ReadonlyArray<[label: string, value: string, normalized: string]> = [
      ['lower case already', 'acme.com', 'acme.com'],
      ['upper case', 'ACME.COM', 'acme.com'],
      ['mixed case', 'Acme.Com', 'acme.com'],
      ['a trailing dot (the root)', 'acme.com.', 'acme.com'],
      ['spaces around', '  acme.com  ', 'acme.com'],
      ['IDNA: Unicode', 'Bücher.example', 'xn--bcher-kva.example'],
      ['IDNA: Unicode in upper case', 'BÜCHER.EXAMPLE', 'xn--bcher-kva.example'],
      ['IDNA: already in punycode', 'xn--bcher-kva.example', 'xn--bcher-kva.example'],
      ['IDNA: punycode in upper case', 'XN--BCHER-KVA.EXAMPLE', 'xn--bcher-kva.example'],
      ['IDNA: another script', '例え.テスト', 'xn--r8jz45g.xn--zckzah'],
      ['IDNA: full-width letters map to ASCII (UTS #46)', 'ａｃｍｅ.com', 'acme.com'],
      ['a label of digits', '123.example', '123.example'],
      ['three labels', 'eu.acme.com', 'eu.acme.com'],
    ];
    for (const [label, value, normalized] of same) {
      it(`${label}: ${JSON.stringify(value)} is ${normalized}`, () => {
        expect(normalizeDomain(value)).to.equal(normalized);
      });
    }

    const refused: ReadonlyArray<[label: string, value: string]> = [
      ['empty', ''],
      ['only a dot', '.'],
      ['two trailing dots', 'acme.com..'],
      ['a leading dot', '.acme.com'],
      ['an empty label', 'acme..com'],
      ['a single label', 'localhost'],
      ['a single label with its trailing dot', 'com.'],
      ['an IPv4 address', '192.0.2.1'],
      ['an IPv4 address in hexadecimal (WHATWG reads it as one)', '0x7f.1'],
      ['an IPv6 literal', '[::1]'],
      ['an IPv4 literal in brackets', '[192.0.2.1]'],
      ['a port', 'acme.com:443'],
      ['a path', 'acme.com/x'],
      ['a space inside', 'ac me.com'],
      ['an @', 'a@acme.com'],
      ['a percent-escape', 'acme.com%2f'],
      ['an underscore', 'a_b.com'],
      ['a label starting with "-"', '-acme.com'],
      ['a label ending with "-"', 'acme-.com'],
      ['a label of 64 characters', `${'a'.repeat(64)}.com`],
      ['over 253 characters', `${'a.'.repeat(127)}com`],
      ['a numeric last label', 'acme.123'],
    ];
    for (const [label, value] of refused) {
      it(`refuses ${label}: ${JSON.stringify(value)}`, () => {
        expect(normalizeDomain(value)).to.equal(undefined);
      });
    }
  });

  describe('normalizeDomain: the same as URL host parsing gives, whether it runs or not', () => {
    // What normalizeDomain was before it skipped the parser for domains already in its
    // spelling: the parser on every value.
    const byParser = (value: string): string | undefined => {
      const trimmed = value.trim().replace(/\.$/, '');
      if (trimmed === '' || trimmed.length > 253 || /[\s/\\?#@:[\]%]/.test(trimmed)) return undefined;
      if (!URL.canParse(`http://${trimmed}/`)) return undefined;
      const host = new URL(`http://${trimmed}/`).hostname;
      if (/^[\d.]+$/.test(host) || host.startsWith('[') || !host.includes('.')) return undefined;
      const isLabel = (label: string) =>
        label.length >= 1 && label.length <= 63 && !label.startsWith('-') && !label.endsWith('-');
      return /^[a-z0-9.-]+$/.test(host) && host.split('.').every(isLabel) ? host : undefined;
    };
    // Labels the skipped parser would have read otherwise: numbers it takes for IPv4
    // (decimal, octal, hexadecimal), punycode it decodes (valid or not), upper case, hyphens.
    const labels = [
      'acme',
      'a-b',
      '-a',
      'a-',
      '0',
      '08',
      '123',
      '0x',
      '0x7f',
      '0xg',
      '1e5',
      'xn--bcher-kva',
      'xn--a',
      'xn--',
      'Xn--bcher-kva',
      'ACME',
      'a'.repeat(63),
      'a'.repeat(64),
      'bücher',
    ];
    const values = labels.flatMap((first) =>
      labels.flatMap((last) => [`${first}.${last}`, `${first}.example.${last}`, `eu.${first}.${last}`]),
    );
    it(`gives what the parser gives for ${values.length} two- and three-label names`, () => {
      const differing = values.filter((value) => normalizeDomain(value) !== byParser(value));
      expect(differing).to.deep.equal([]);
    });
  });

  describe('emailDomain: the domain of an address as a person types it', () => {
    const found: ReadonlyArray<[label: string, address: string, domain: string]> = [
      ['plain', 'ada@acme.com', 'acme.com'],
      ['upper-case domain', 'Ada@ACME.COM', 'acme.com'],
      ['spaces around', '  ada@acme.com  ', 'acme.com'],
      ['a trailing dot', 'ada@acme.com.', 'acme.com'],
      ['an IDNA domain', 'ada@Bücher.example', 'xn--bcher-kva.example'],
      ['the same in punycode', 'ada@xn--bcher-kva.example', 'xn--bcher-kva.example'],
      ['a subdomain', 'ada@eu.acme.com', 'eu.acme.com'],
      ['a plus and dots in the local part', 'ada.lovelace+work@acme.com', 'acme.com'],
      ['a local part of 64 characters', `${'a'.repeat(64)}@acme.com`, 'acme.com'],
    ];
    for (const [label, address, domain] of found) {
      it(`${label}: ${JSON.stringify(address)} is at ${domain}`, () => {
        expect(emailDomain(address)).to.deep.equal({ domain });
      });
    }

    const malformed: ReadonlyArray<[label: string, address: string]> = [
      ['empty', ''],
      ['spaces only', '   '],
      ['no @', 'ada.acme.com'],
      ['two @', 'ada@evil.com@acme.com'],
      ['an empty local part', '@acme.com'],
      ['an empty domain', 'ada@'],
      ['a space in the local part', 'ada lovelace@acme.com'],
      ['a space in the domain', 'ada@acme .com'],
      ['a quoted local part', '"ada lovelace"@acme.com'],
      ['angle brackets (a display name)', 'Ada <ada@acme.com>'],
      ['a comma (two addresses)', 'ada@acme.com,eve@evil.com'],
      ['an IPv4 literal domain', 'ada@[192.0.2.1]'],
      ['an IPv6 literal domain', 'ada@[IPv6:2001:db8::1]'],
      ['an IPv4 address as the domain', 'ada@192.0.2.1'],
      ['a single-label domain', 'ada@localhost'],
      ['a local part of 65 characters', `${'a'.repeat(65)}@acme.com`],
      [
        'over 320 characters',
        `ada@${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.com`,
      ],
    ];
    for (const [label, address] of malformed) {
      it(`refuses ${label}: ${JSON.stringify(address)}`, () => {
        expect(emailDomain(address)).to.deep.equal({ problem: 'malformed' });
      });
    }
  });

  describe('normalizeDomainPattern: a Domains entry', () => {
    const cases: ReadonlyArray<[value: string, pattern: string | undefined]> = [
      ['acme.com', 'acme.com'],
      ['ACME.com.', 'acme.com'],
      ['*.acme.com', '*.acme.com'],
      ['*.ACME.COM.', '*.acme.com'],
      ['*.Bücher.example', '*.xn--bcher-kva.example'],
      [' *.acme.com ', '*.acme.com'],
      // A wildcard is one leading `*.` over a domain: anything else is no pattern.
      ['*.*.acme.com', undefined],
      ['*acme.com', undefined],
      ['eu.*.acme.com', undefined],
      ['*.com', undefined],
      ['*', undefined],
      ['*.', undefined],
      ['', undefined],
    ];
    for (const [value, pattern] of cases) {
      it(`${JSON.stringify(value)} is ${String(pattern)}`, () => {
        expect(normalizeDomainPattern(value)).to.equal(pattern);
      });
    }
  });
});
