import { expect } from 'chai';
import { CONSUMER_MAIL_DOMAINS, isConsumerDomainPattern } from '../../../../src/domain/connections/consumer-domains.js';
import { readConnection } from '../../../../src/domain/connections/read-connection.js';
import { CONNECTION_RULES, declaration, oidcSection } from '../../../support/connection-declarations.js';

describe('consumer mail domains', () => {
  const consumer: ReadonlyArray<[label: string, pattern: string]> = [
    ['gmail.com', 'gmail.com'],
    ['outlook.com', 'outlook.com'],
    ['icloud.com', 'icloud.com'],
    ['yahoo.com', 'yahoo.com'],
    ['a subdomain of one', 'eu.gmail.com'],
    ['a deeper subdomain of one', 'a.b.outlook.com'],
    ['a wildcard over one', '*.gmail.com'],
    ['a wildcard over a subdomain of one', '*.eu.hotmail.com'],
    // A wildcard over a suffix holding one covers it (web.de, gmx.de).
    ['a wildcard over the suffix of one', '*.de'],
  ];
  for (const [label, pattern] of consumer) {
    it(`is ${label}: ${pattern}`, () => {
      expect(isConsumerDomainPattern(pattern)).to.equal(true);
    });
  }

  const organizational: ReadonlyArray<[label: string, pattern: string]> = [
    ['an organization', 'acme.com'],
    ['a wildcard of an organization', '*.acme.com'],
    ['a name that merely ends like one', 'notgmail.com'],
    ['a name that contains one', 'gmail.com.acme.example'],
    ['a wildcard over a name that merely ends like one', '*.mygmail.com'],
  ];
  for (const [label, pattern] of organizational) {
    it(`is not ${label}: ${pattern}`, () => {
      expect(isConsumerDomainPattern(pattern)).to.equal(false);
    });
  }

  it('every listed domain is refused in Domains, alone and as a wildcard, naming the entry', () => {
    for (const domain of CONSUMER_MAIL_DOMAINS) {
      const { connection, problems } = readConnection(
        declaration('Acme', oidcSection('acme', ['acme.com', domain, `*.${domain}`])),
        CONNECTION_RULES,
      );
      expect(connection, domain).to.equal(undefined);
      expect(
        problems.map((problem) => problem.key),
        domain,
      ).to.deep.equal([
        'ProjectTemplate:Authentication:Connections:Acme:Domains:1',
        'ProjectTemplate:Authentication:Connections:Acme:Domains:2',
      ]);
      expect(problems[0]?.message).to.contain('consumer mail domain');
    }
  });

  it('AllowConsumerDomains lets a connection hold one (a provider of your own for the public)', () => {
    const { connection, problems } = readConnection(
      declaration('Public', oidcSection('public', ['gmail.com', '*.outlook.com'], { AllowConsumerDomains: true })),
      CONNECTION_RULES,
    );
    expect(problems).to.deep.equal([]);
    expect(connection?.domains).to.deep.equal(['gmail.com', '*.outlook.com']);
  });

  it('AllowConsumerDomains of one connection allows them for that connection only', () => {
    const { connection } = readConnection(
      declaration('Other', oidcSection('other', ['gmail.com'], { AllowConsumerDomains: false })),
      CONNECTION_RULES,
    );
    expect(connection).to.equal(undefined);
  });
});
