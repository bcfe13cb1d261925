import { claimHints, type ClaimHints } from '../../domain/connections/claim-hints.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import type { ProviderDefinition } from '../../domain/providers/provider-definition.js';

/**
 * A declaration read and not checked yet: a large catalog's entry at start. Nothing it holds
 * is trusted: its keys are read only to know which other declarations it could conflict
 * with (ClaimHints), and `declare` turns it into the declaration the rules check.
 */
export interface DeferredDeclaration {
  readonly name: string;
  readonly origin: string;
  /** Its keys as stored (any letter case, secrets sealed). */
  readonly keys: Readonly<Record<string, unknown>>;
  /** The domains its owner proved through DNS. */
  readonly provedDomains: readonly string[];
  /** The declaration (its secrets opened, its keys typed), at once: a lookup may need it checked there and then. */
  declare(): ConnectionDeclaration;
}

interface Waiting {
  readonly position: number;
  readonly declaration: DeferredDeclaration;
}

/** Who could claim what, among the declarations still waiting: made on first need, over the waiting ones only. */
interface Claims {
  readonly hints: Map<string, ClaimHints>;
  /** By proved domain. */
  readonly atDomain: Map<string, string[]>;
  /** By each domain strictly above a proved domain. */
  readonly belowDomain: Map<string, string[]>;
  readonly byIssuer: Map<string, string[]>;
  readonly listed: string[];
}

/**
 * The declarations waiting to be checked, in the order they were read (the order checking
 * them all at once would take), and which of them must be checked before a given one: the
 * earlier ones it could conflict with (share or overlap a domain, name the same identity
 * provider), and theirs in turn. Checked in that order, a declaration meets every earlier
 * one that could refuse it, so each is accepted or refused as if all had been checked in order.
 * A declaration is taken out when it is handed over to be checked.
 */
export class DeferredDeclarations {
  readonly #waiting = new Map<string, Waiting>();
  #order: string[] = [];
  #next = 0;
  #claims: Claims | undefined;

  constructor(private readonly protocols: readonly ProviderDefinition[]) {}

  get size(): number {
    return this.#waiting.size;
  }

  /** The names of those still waiting. */
  *names(): IterableIterator<string> {
    for (const { declaration } of this.#waiting.values()) yield declaration.name;
  }

  /** Appends declarations, after every one waiting (their ids, names in lower case, are distinct). */
  add(declarations: readonly DeferredDeclaration[]): void {
    for (const declaration of declarations) {
      const id = declaration.name.toLowerCase();
      this.#waiting.set(id, { position: this.#order.length, declaration });
      this.#order.push(id);
    }
    this.#claims = undefined;
  }

  /** The next `count` waiting, in order. */
  takeNext(count: number): DeferredDeclaration[] {
    const taken: DeferredDeclaration[] = [];
    while (taken.length < count && this.#next < this.#order.length) {
      const id = this.#order[this.#next++]!;
      const waiting = this.#waiting.get(id);
      if (waiting === undefined) continue;
      this.#waiting.delete(id);
      taken.push(waiting.declaration);
    }
    if (this.#waiting.size === 0) this.#reset();
    return taken;
  }

  takeAll(): DeferredDeclaration[] {
    return this.takeNext(Infinity);
  }

  /** The one of this id, if waiting, after the earlier ones it could conflict with. */
  takeWithRivals(id: string): DeferredDeclaration[] {
    return this.#waiting.has(id) ? this.#takeWithRivals([id]) : [];
  }

  /** Those that could route `domain` (a normalized e-mail domain): a proof of it or of a domain above it. */
  takeClaimants(domain: string): DeferredDeclaration[] {
    if (this.#waiting.size === 0) return [];
    const claims = this.#claimsNow();
    const ids: string[] = [...(claims.atDomain.get(domain) ?? [])];
    for (let above = parentOf(domain); above !== undefined; above = parentOf(above))
      ids.push(...(claims.atDomain.get(above) ?? []));
    return this.#takeWithRivals(ids);
  }

  /** Those that could be listed on the login page. */
  takeListed(): DeferredDeclaration[] {
    return this.#waiting.size === 0 ? [] : this.#takeWithRivals(this.#claimsNow().listed);
  }

  /** `ids` still waiting and, before each, the earlier ones it could conflict with, and theirs: all taken, in order. */
  #takeWithRivals(ids: readonly string[]): DeferredDeclaration[] {
    const found = new Map<string, Waiting>();
    const stack = ids.filter((id) => this.#waiting.has(id));
    while (stack.length > 0) {
      const id = stack.pop()!;
      const waiting = this.#waiting.get(id);
      if (waiting === undefined || found.has(id)) continue;
      found.set(id, waiting);
      for (const rival of this.#rivalsOf(id)) {
        const other = this.#waiting.get(rival);
        if (other !== undefined && other.position < waiting.position && !found.has(rival)) stack.push(rival);
      }
    }
    for (const id of found.keys()) this.#waiting.delete(id);
    if (this.#waiting.size === 0) this.#reset();
    return [...found.values()].sort((a, b) => a.position - b.position).map((waiting) => waiting.declaration);
  }

  /** The waiting declarations `id` could conflict with, earlier or later. */
  #rivalsOf(id: string): string[] {
    const claims = this.#claimsNow();
    const hints = claims.hints.get(id);
    if (hints === undefined) return [];
    const rivals: string[] = [];
    for (const domain of hints.domains) {
      // The same domain, one under it (a wildcard over this one covers it), one above it (a wildcard there covers this).
      rivals.push(...(claims.atDomain.get(domain) ?? []), ...(claims.belowDomain.get(domain) ?? []));
      for (let above = parentOf(domain); above !== undefined; above = parentOf(above))
        rivals.push(...(claims.atDomain.get(above) ?? []));
    }
    for (const issuer of hints.issuers) rivals.push(...(claims.byIssuer.get(issuer) ?? []));
    return rivals;
  }

  #claimsNow(): Claims {
    if (this.#claims) return this.#claims;
    const claims: Claims = {
      hints: new Map(),
      atDomain: new Map(),
      belowDomain: new Map(),
      byIssuer: new Map(),
      listed: [],
    };
    for (const [id, { declaration }] of this.#waiting) {
      const hints = claimHints(declaration.keys, declaration.provedDomains, this.protocols);
      claims.hints.set(id, hints);
      for (const domain of hints.domains) {
        listAt(claims.atDomain, domain).push(id);
        for (let above = parentOf(domain); above !== undefined; above = parentOf(above))
          listAt(claims.belowDomain, above).push(id);
      }
      for (const issuer of hints.issuers) listAt(claims.byIssuer, issuer).push(id);
      if (hints.listed) claims.listed.push(id);
    }
    this.#claims = claims;
    return claims;
  }

  /** None waiting: what was kept to find them goes. */
  #reset(): void {
    this.#order = [];
    this.#next = 0;
    this.#claims = undefined;
  }
}

function listAt(map: Map<string, string[]>, key: string): string[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

function parentOf(domain: string): string | undefined {
  const dot = domain.indexOf('.');
  return dot === -1 ? undefined : domain.slice(dot + 1);
}
