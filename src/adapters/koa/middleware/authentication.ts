import type { Middleware } from 'koa';
import type { Clock } from '../../../application/ports/clock.js';
import type { RefreshTokens } from '../../../application/use-cases/refresh-tokens.js';
import { touchIntervalMs, type SessionLifetime } from '../session/session-lifetime.js';
import type { SavedTokens } from '../session/saved-tokens.js';
import type { SignInRecords } from '../session/sign-in-records.js';
import { sessionOf } from '../session/session-state.js';

/**
 * The cookie scheme's authenticate step: reads the session's sign-in (the principal) into
 * `ctx.state.principal` (and what the views show), slides the idle timeout, and
 * refreshes saved tokens that have expired. A request without a session cookie touches
 * no store.
 */
export function authentication(deps: {
  clock: Clock;
  lifetime: SessionLifetime;
  refreshTokens: RefreshTokens;
  savedTokens: SavedTokens;
  signIns: SignInRecords;
}): Middleware {
  const touchEvery = touchIntervalMs(deps.lifetime);
  return async function authenticate(ctx, next) {
    const session = sessionOf(ctx);
    const signIn = session.isNew ? undefined : await deps.signIns.read(session);
    if (signIn) {
      const { principal } = signIn;
      const now = deps.clock.now();
      if (typeof session.lastSeenAt !== 'number' || now - session.lastSeenAt >= touchEvery) session.lastSeenAt = now;
      if (
        session.tokensSaved === true &&
        deps.refreshTokens.needsRefresh(session.tokensExpireAt, session.tokensRefreshable === true)
      ) {
        const tokens = await deps.savedTokens.load(session);
        const result = tokens
          ? await deps.refreshTokens.execute(signIn.ref, principal.scheme, tokens, () => deps.savedTokens.load(session))
          : { outcome: 'refused' as const };
        if (result.outcome === 'refreshed') await deps.savedTokens.save(session, result.tokens);
        else if (result.outcome === 'refused') await deps.savedTokens.drop(session);
      }
      ctx.state.principal = principal;
      ctx.state.user = { name: signIn.userName };
      ctx.state.csrfToken = signIn.csrf;
    }
    await next();
  };
}
