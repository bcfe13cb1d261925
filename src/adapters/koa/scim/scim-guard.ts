import type { Context, Middleware } from 'koa';
import type { ScimTokens } from '../../../application/directory/scim-tokens.js';
import type { SessionStore } from '../../../application/ports/session-store.js';
import { clientKeyOf } from '../../../domain/client-key.js';
import { scimAnswering, sendScimError } from './scim-answer.js';

/** What the guard leaves for the handlers: the organization the token is for (the path's own). */
export interface ScimCaller {
  organization: string;
  tokenId: string;
}

const callers = new WeakMap<Context, ScimCaller>();

/** The caller the guard let through; a handler behind it always has one. */
export function scimCallerOf(ctx: Context): ScimCaller {
  const caller = callers.get(ctx);
  if (!caller) throw new Error('a SCIM handler ran without its guard');
  return caller;
}

const WINDOW_MS = 60_000;

export interface ScimGuardOptions {
  tokens: Pick<ScimTokens, 'organizationOf' | 'markUsed'>;
  /** The store every instance shares (the pending-sign-in store, like the other per-client limits). */
  counters: Pick<SessionStore, 'increment' | 'get' | 'create'>;
  /** `Directory:RequestsPerMinute`: per token. */
  requestsPerMinute: number;
  /** `Directory:FailedAuthenticationsPerMinute`: refused credentials per client. */
  failedAuthenticationsPerMinute: number;
  /** `Session:ClientIpv6PrefixLength`: an IPv6 client is counted by its network. */
  ipv6PrefixLength: number;
  now: () => number;
}

/**
 * The SCIM routes' credentials: `Authorization: Bearer <token>` of a token made for the
 * organization the path names. No token, a token of no organization, a revoked one, and
 * another organization's all get the same 401 (nothing tells a guesser which it was).
 *
 * Two limits, on the store every instance shares, each answering 429 with Retry-After:
 * - a client (clientKeyOf: its address, an IPv6 client its network) that presented more
 *   than `failedAuthenticationsPerMinute` refused credentials is refused before any token
 *   is looked up until the minute ends, whatever it sends: were a right token let through,
 *   its 200 among the 429s would tell a guesser it had found one. Other clients, and the
 *   directory's own, are not touched by it;
 * - a token's requests past `requestsPerMinute`.
 */
export function scimGuard(options: ScimGuardOptions): Middleware {
  return async (ctx, next) => {
    await scimAnswering(ctx, async () => {
      const client = clientKeyOf(ctx.ip, options.ipv6PrefixLength);
      const blockedUntil = await blockedUntilOf(options, client);
      if (blockedUntil !== undefined) return tooManyRefusals(ctx, blockedUntil - options.now());
      const found = await callerOf(ctx, options.tokens);
      if (!found) {
        const refused = await options.counters.increment(`scim-refused:${client}`, WINDOW_MS);
        if (refused.count > options.failedAuthenticationsPerMinute) {
          await options.counters.create(
            `scim-refused-block:${client}`,
            { until: options.now() + refused.resetsInMs },
            Math.max(1, refused.resetsInMs),
          );
          return tooManyRefusals(ctx, refused.resetsInMs);
        }
        ctx.set('www-authenticate', 'Bearer realm="SCIM"');
        sendScimError(ctx, 401, 'A valid bearer token of this organization is required.');
        return;
      }
      const { count, resetsInMs } = await options.counters.increment(`scim-requests:${found.tokenId}`, WINDOW_MS);
      if (count > options.requestsPerMinute) {
        ctx.set('retry-after', retryAfterSeconds(resetsInMs));
        sendScimError(ctx, 429, 'Too many requests with this token; try again after the time in Retry-After.');
        return;
      }
      callers.set(ctx, found);
      // Beside the answer, not before it: the portal's test and the API's list show when a token was last used.
      void options.tokens.markUsed(found.organization, found.tokenId);
      await next();
    });
  };
}

/** When the client's block ends, if it is blocked; a record of another shape counts as none. */
async function blockedUntilOf(options: ScimGuardOptions, client: string): Promise<number | undefined> {
  const record = await options.counters.get(`scim-refused-block:${client}`);
  const until = record?.until;
  return typeof until === 'number' && until > options.now() ? until : undefined;
}

function tooManyRefusals(ctx: Context, resetsInMs: number): void {
  ctx.set('retry-after', retryAfterSeconds(resetsInMs));
  sendScimError(ctx, 429, 'Too many refused credentials from here; try again after the time in Retry-After.');
}

function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

async function callerOf(ctx: Context, tokens: Pick<ScimTokens, 'organizationOf'>): Promise<ScimCaller | undefined> {
  const header = ctx.get('authorization');
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match?.[1]) return undefined;
  const found = await tokens.organizationOf(match[1]);
  const organization = String(ctx.params.organization ?? '');
  // Compared as stored: organizations are names an operator or the API gave, case included.
  if (!found || found.organization !== organization) return undefined;
  return found;
}
