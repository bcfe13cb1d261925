import { expect } from 'chai';
import { readConnection } from '../../../../src/domain/connections/read-connection.js';
import { unclaimableDomains } from '../../../../src/domain/connections/unclaimable-domains.js';
import { CONNECTION_RULES, declaration, oidcSection } from '../../../support/connection-declarations.js';

/** What a customer's connection declaring `domains` (after `acme.com`) is refused for: each problem's key and message. */
function refusals(domains: string[], extra: Record<string, unknown> = {}) {
  const { connection, problems } = readConnection(
    declaration('Acme', oidcSection('acme', ['acme.com', ...domains], extra)),
    CONNECTION_RULES,
  );
  return {
    connection,
    problems: problems.map((problem) => `${problem.key.split(':').slice(-2).join(':')} ${problem.message}`),
  };
}

describe('domains no organization can claim (the Public Suffix List and free mail domains)', () => {
  const publicSuffixes = [
    'co.uk',
    '*.co.uk',
    'com.au',
    '*.com.au',
    'co.jp',
    'gov.uk',
    'github.io',
    '*.github.io',
    'foo.ck',
  ];
  for (const pattern of publicSuffixes) {
    it(`refuses ${pattern}, a public suffix or a wildcard over one, even with AllowConsumerDomains`, () => {
      for (const extra of [{}, { AllowConsumerDomains: true }]) {
        const { connection, problems } = refusals([pattern], extra);
        expect(connection).to.equal(undefined);
        expect(problems).to.have.length(1);
        expect(problems[0]).to.match(/^Domains:1 is a public suffix/);
      }
    });
  }

  const consumerMail = [
    'gmail.com',
    'hotmail.co.uk',
    'yahoo.co.jp',
    'outlook.de',
    'gmx.de',
    'web.de',
    'yandex.ru',
    'qq.com',
    'naver.com',
    'hanmail.net',
    'yahoo.com.br',
    'fastmail.com',
    'tutanota.com',
    'eu.gmail.com',
    '*.gmail.com',
    '*.hotmail.co.uk',
  ];
  for (const pattern of consumerMail) {
    it(`refuses ${pattern}, a free mail domain (or under one), unless AllowConsumerDomains`, () => {
      const { connection, problems } = refusals([pattern]);
      expect(connection).to.equal(undefined);
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Domains:1 is a consumer mail domain/);
      expect(refusals([pattern], { AllowConsumerDomains: true }).problems).to.deep.equal([]);
    });
  }

  const organizational = [
    'acme.co.uk',
    '*.acme.co.uk',
    'acme.com.au',
    'eu.acme.com',
    '*.acme.org',
    'notgmail.com',
    'gmail.com.acme.example',
    'acme.test',
    'example.com',
    'team.example.com',
  ];
  for (const pattern of organizational) {
    it(`accepts ${pattern}, an organization's domain`, () => {
      const { connection, problems } = refusals([pattern]);
      expect(problems).to.deep.equal([]);
      expect(connection?.domains).to.include(pattern);
    });
  }

  it('refuses a wildcard over a domain that holds a free mail domain, and nothing it does not cover', () => {
    const unclaimable = unclaimableDomains({
      isPublicSuffix: (domain) => domain === 'com',
      consumerMailDomains: ['mail.example.org'],
    });
    expect(unclaimable('*.example.org')).to.equal('consumer-mail');
    expect(unclaimable('example.org')).to.equal(undefined);
    expect(unclaimable('x.mail.example.org')).to.equal('consumer-mail');
    expect(unclaimable('*.other.org')).to.equal(undefined);
    expect(unclaimable('*.com')).to.equal('public-suffix');
  });
});
