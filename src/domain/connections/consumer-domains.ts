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

/** True when the pattern (`example.com` or `*.example.com`) is, or covers, a consumer mail domain. */
export function isConsumerDomainPattern(pattern: string): boolean {
  const base = pattern.startsWith('*.') ? pattern.slice(2) : pattern;
  if (CONSUMER_MAIL_DOMAINS.has(base)) return true;
  // `*.com` covers every consumer domain of that suffix; a domain under one (`x.gmail.com`) is theirs too.
  return [...CONSUMER_MAIL_DOMAINS].some(
    (consumer) => base.endsWith(`.${consumer}`) || (pattern.startsWith('*.') && consumer.endsWith(`.${base}`)),
  );
}
