import type { Middleware } from 'koa';
import type { Clock } from '../../../application/ports/clock.js';
import type { RefreshTokens } from '../../../application/use-cases/refresh-tokens.js';
import { displayName } from '../../../domain/claims/principal.js';
import { touchIntervalMs, type SessionLifetime } from '../session/session-lifetime.js';
import type { SavedTokens } from '../session/saved-tokens.js';
import { readPrincipal, sessionOf } from '../session/session-state.js';

/**
 * The cookie scheme's authenticate step: reads the principal from the server-side session
 * into `ctx.state.principal` (and what the views show), slides the idle timeout, and
 * refreshes saved tokens that have expired. A request without a session cookie touches
 * no store.
 */
export function authentication(deps: { clock: Clock; lifetime: SessionLifetime; refreshTokens: RefreshTokens; savedTokens: SavedTokens }): Middleware {
  const touchEvery = touchIntervalMs(deps.lifetime);
  return async function authenticate(ctx, next) {
    const session = sessionOf(ctx);
    const principal = session.isNew ? undefined : readPrincipal(session.principal);
    if (principal) {
      const now = deps.clock.now();
      if (typeof session.lastSeenAt !== 'number' || now - session.lastSeenAt >= touchEvery) session.lastSeenAt = now;
      if (typeof session.tokensRef === 'string' && deps.refreshTokens.needsRefresh(session.tokensExpireAt, session.tokensRefreshable === true)) {
        const tokens = await deps.savedTokens.load(session);
        const fresh = tokens ? await deps.refreshTokens.execute(session.tokensRef, principal.scheme, tokens) : undefined;
        await deps.savedTokens.save(session, fresh);
      }
      ctx.state.principal = principal;
      ctx.state.user = { name: displayName(principal) ?? 'signed-in user' };
      ctx.state.csrfToken = session.csrf;
    }
    await next();
  };
}
