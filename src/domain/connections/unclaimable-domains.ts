/** Why no organization can claim a `Domains` entry. */
export type UnclaimableReason = 'public-suffix' | 'consumer-mail';

/**
 * What the world's lists say of domains: the Public Suffix List (`co.uk`, `com.au`,
 * `github.io`: names under one belong to whoever registers them, the suffix to nobody) and
 * the free mail domains (anyone can get an address at `gmail.com`, `hotmail.co.uk`,
 * `yahoo.co.jp`). The lists are data kept by others and given by an adapter; the rules
 * that read them are here.
 */
export interface DomainLists {
  isPublicSuffix(domain: string): boolean;
  consumerMailDomains: Iterable<string>;
}

/**
 * The test of a normalized `Domains` entry (`example.com` or `*.example.com`): why no
 * organization can claim it, or undefined. A public suffix, or a wildcard over one
 * (`*.co.uk`), is nobody's. A consumer mail domain, a name under one (`eu.gmail.com`), or a
 * wildcard over a domain holding one, is anybody's: an organization that claimed it could
 * have its identity provider sign in anyone with such an address (connections may allow
 * those with `AllowConsumerDomains`). Map reads, one per label: asked for every domain of
 * every connection.
 */
export function unclaimableDomains(lists: DomainLists): (pattern: string) => UnclaimableReason | undefined {
  const consumer = new Set(lists.consumerMailDomains);
  // The domains strictly above a consumer mail domain: what a wildcard over one covers.
  const aboveConsumer = new Set<string>();
  for (const domain of consumer)
    for (let above = parentOf(domain); above; above = parentOf(above)) aboveConsumer.add(above);
  // A connection lists a domain and the wildcard over it (`acme.com`, `*.acme.com`), one
  // after the other: the suffix list is read once for both.
  let lastBase: string | undefined;
  let lastIsSuffix = false;
  const isPublicSuffix = (base: string) => {
    if (base !== lastBase) {
      lastIsSuffix = lists.isPublicSuffix(base);
      lastBase = base;
    }
    return lastIsSuffix;
  };
  return (pattern) => {
    const wildcard = pattern.startsWith('*.');
    const base = wildcard ? pattern.slice(2) : pattern;
    if (isPublicSuffix(base)) return 'public-suffix';
    if (wildcard && aboveConsumer.has(base)) return 'consumer-mail';
    for (let domain: string | undefined = base; domain !== undefined; domain = parentOf(domain)) {
      if (consumer.has(domain)) return 'consumer-mail';
    }
    return undefined;
  };
}

function parentOf(domain: string): string | undefined {
  const dot = domain.indexOf('.');
  return dot === -1 ? undefined : domain.slice(dot + 1);
}
