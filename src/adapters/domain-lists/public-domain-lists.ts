import emailProviders from 'email-providers/all.json' with { type: 'json' };
import { getPublicSuffix } from 'tldts';
import type { DomainLists } from '../../domain/connections/unclaimable-domains.js';

/**
 * Free mail domains the email-providers list lacks (checked against its 2.26.0): kept here
 * until it has them.
 */
const ALSO_CONSUMER_MAIL_DOMAINS = [
  'fastmail.com',
  'tutanota.com',
  'tuta.io',
  'tutamail.com',
  'outlook.co.uk',
  'gmx.ch',
  'yandex.ua',
  'yandex.kz',
  'yandex.by',
  'sohu.com',
  'mailfence.com',
  'posteo.de',
  'disroot.org',
  'riseup.net',
];

/**
 * Names the email-providers list holds that are nobody's mailbox provider: RFC 2606
 * reserves them for documentation and examples.
 */
const RESERVED_FOR_EXAMPLES = new Set(['example.com', 'example.net', 'example.org']);

/**
 * The lists a `Domains` entry is checked against, both data compiled into packages (no
 * network, no file read at run time; the bundle carries them): the Public Suffix List
 * through tldts (ICANN and private suffixes: `co.uk`, `github.io`; a name under a TLD the
 * list does not know, such as `acme.test`, is an ordinary domain), and the free mail
 * domains of the email-providers package (about 8,700, regional ones included), with the
 * few above. Updating either package updates the lists.
 */
export function publicDomainLists(): DomainLists {
  return {
    isPublicSuffix: (domain) => getPublicSuffix(domain, { allowPrivateDomains: true }) === domain,
    consumerMailDomains: [
      ...emailProviders.filter((domain) => !RESERVED_FOR_EXAMPLES.has(domain)),
      ...ALSO_CONSUMER_MAIL_DOMAINS,
    ],
  };
}
