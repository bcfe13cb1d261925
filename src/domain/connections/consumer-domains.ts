/**
 * Mail domains anyone can get an address at. An organization's connection that claimed
 * one would let its identity provider sign in anybody who says they have such an address
 * (and would route every such person to that organization's provider): refused in
 * `Domains` unless the connection sets `AllowConsumerDomains` (a consumer-facing provider
 * of one's own, say). Wildcards over them (`*.gmail.com`) are refused the same way.
 */
export const CONSUMER_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'rocketmail.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'zoho.com',
  'fastmail.com',
  'hey.com',
  'tutanota.com',
  'qq.com',
  '163.com',
  '126.com',
]);

/** The domains strictly above a consumer mail domain (`com`, `ru`, `co.uk` ...): what a wildcard over one covers. */
const ABOVE_CONSUMER_DOMAINS: ReadonlySet<string> = new Set(
  [...CONSUMER_MAIL_DOMAINS].flatMap((consumer) =>
    consumer
      .split('.')
      .slice(1)
      .map((_, index, labels) => labels.slice(index).join('.')),
  ),
);

/**
 * True when the pattern (`example.com` or `*.example.com`) is, or covers, a consumer mail
 * domain: itself one, under one (`x.gmail.com` is Google's too), or a wildcard above one
 * (`*.com`). Map reads, one per label: asked for every domain of every connection.
 */
export function isConsumerDomainPattern(pattern: string): boolean {
  const wildcard = pattern.startsWith('*.');
  const base = wildcard ? pattern.slice(2) : pattern;
  if (wildcard && ABOVE_CONSUMER_DOMAINS.has(base)) return true;
  for (let domain: string | undefined = base; domain !== undefined;) {
    if (CONSUMER_MAIL_DOMAINS.has(domain)) return true;
    const dot = domain.indexOf('.');
    domain = dot === -1 ? undefined : domain.slice(dot + 1);
  }
  return false;
}
