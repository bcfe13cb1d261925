import type { Middleware } from 'koa';
import type { Clock } from '../../../application/ports/clock.js';
import type { RefreshTokens } from '../../../application/use-cases/refresh-tokens.js';
import { displayName } from '../../../domain/claims/principal.js';
import { touchIntervalMs, type SessionLifetime } from '../session/session-lifetime.js';
import { readPrincipal, readTokens, sessionOf, sessionTokenOf } from '../session/session-state.js';

/**
 * The cookie scheme's authenticate step: reads the principal from the server-side session
 * into `ctx.state.principal` (and what the views show), slides the idle timeout, and
 * refreshes saved tokens that have expired. A request without a session cookie touches
 * no store.
 */
export function authentication(deps: { clock: Clock; lifetime: SessionLifetime; refreshTokens: RefreshTokens }): Middleware {
  const touchEvery = touchIntervalMs(deps.lifetime);
  return async function authenticate(ctx, next) {
    const session = sessionOf(ctx);
    const principal = session.isNew ? undefined : readPrincipal(session.principal);
    if (principal) {
      const now = deps.clock.now();
      if (typeof session.lastSeenAt !== 'number' || now - session.lastSeenAt >= touchEvery) session.lastSeenAt = now;
      const tokens = readTokens(session.tokens);
      if (tokens && deps.refreshTokens.needsRefresh(tokens)) {
        const fresh = await deps.refreshTokens.execute(sessionTokenOf(ctx), principal.scheme, tokens);
        session.tokens = fresh;
      }
      ctx.state.principal = principal;
      ctx.state.user = { name: displayName(principal) ?? 'signed-in user' };
      ctx.state.csrfToken = session.csrf;
    }
    await next();
  };
}
