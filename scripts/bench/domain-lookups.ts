/** Lookups per measured count: enough for a steady nanosecond figure. */
export const LOOKUPS = 2_000_000;

/**
 * 4,096 domains to look up among `count` connections named `org-<n>` with the domains
 * `org-<n>.example` and `*.org-<n>.example`: the same mix whatever the count (a domain, a
 * subdomain under a wildcard, another domain, and one nobody holds), so three in four are found.
 */
export function queriesFor(count: number): string[] {
  return Array.from({ length: 4096 }, (_, index) => {
    const org = `org-${(index * 7919) % count}`;
    if (index % 4 === 2) return `eu.${org}.example`;
    if (index % 4 === 3) return `nobody-${index}.example`;
    return `${org}.example`;
  });
}

/** Nanoseconds per lookup over LOOKUPS lookups; `found` keeps the work from being optimized away. */
export function timeLookups(
  lookup: (domain: string) => unknown,
  queries: readonly string[],
): { ns: number; found: number } {
  let found = 0;
  const started = process.hrtime.bigint();
  for (let index = 0; index < LOOKUPS; index++) if (lookup(queries[index & 4095]!)) found += 1;
  return { ns: Number(process.hrtime.bigint() - started) / LOOKUPS, found };
}
