/**
 * E-mail domains as connections compare them: lower case, IDNA (punycode) for names in
 * other scripts, no trailing dot. `Bücher.example` and `xn--bcher-kva.example` are one
 * domain. WHATWG URL host parsing does the IDNA mapping (UTS #46) and refuses what no
 * host name can be.
 */
export function normalizeDomain(value: string): string | undefined {
  const trimmed = value.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253 || /[\s/\\?#@:[\]%]/.test(trimmed)) return undefined;
  const host = isHostAsParsed(trimmed) ? trimmed : hostOf(trimmed);
  if (host === undefined) return undefined;
  // An IP address is no mail domain of an organization; a name needs a dot (`example.com`).
  if (/^[\d.]+$/.test(host) || host.startsWith('[') || !host.includes('.')) return undefined;
  return /^[a-z0-9.-]+$/.test(host) && host.split('.').every(isLabel) ? host : undefined;
}

function hostOf(domain: string): string | undefined {
  return URL.canParse(`http://${domain}/`) ? new URL(`http://${domain}/`).hostname : undefined;
}

/**
 * True when URL host parsing would give `domain` back unchanged, so it need not run (it is
 * most of the cost of reading a connection's domains, and a catalog holds thousands): labels
 * of lower-case ASCII letters, digits and "-" map to themselves (UTS #46), unless one is
 * punycode (`xn--`, which the parser decodes to check) or the last is a number (digits
 * only, or `0x...`: the parser reads the host as an IPv4 address).
 */
function isHostAsParsed(domain: string): boolean {
  if (!/^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/.test(domain) || domain.startsWith('xn--') || domain.includes('.xn--'))
    return false;
  return !/^(?:\d+|0x.*)$/.test(domain.slice(domain.lastIndexOf('.') + 1));
}

function isLabel(label: string): boolean {
  return label.length >= 1 && label.length <= 63 && !label.startsWith('-') && !label.endsWith('-');
}

/**
 * The domain of an e-mail address as a person types it, or why it is not one. Only the
 * shape is checked (one `@`, a local part of at most 64 characters without spaces, a
 * domain): whether the mailbox exists is the identity provider's business.
 */
export function emailDomain(address: string): { domain: string } | { problem: 'malformed' } {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf('@');
  if (trimmed.length > 320 || at < 1 || at !== trimmed.indexOf('@')) return { problem: 'malformed' };
  const local = trimmed.slice(0, at);
  if (local.length > 64 || /[\s<>()[\]\\,;:"]/.test(local)) return { problem: 'malformed' };
  const domain = normalizeDomain(trimmed.slice(at + 1));
  return domain === undefined ? { problem: 'malformed' } : { domain };
}

/**
 * A `Domains` entry: a domain (`example.com`, that domain only) or a wildcard
 * (`*.example.com`: every subdomain of it, never `example.com` itself). Normalized, or
 * undefined when it is neither.
 */
export function normalizeDomainPattern(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed.startsWith('*.')) {
    const base = normalizeDomain(trimmed.slice(2));
    return base === undefined ? undefined : `*.${base}`;
  }
  return normalizeDomain(trimmed);
}
