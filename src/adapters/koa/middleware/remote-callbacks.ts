import type { Middleware } from 'koa';
import { flowKey } from '../../../application/flow-key.js';
import type { Clock } from '../../../application/ports/clock.js';
import type { IdentityProviderInfo } from '../../../application/ports/identity-provider.js';
import type { CompleteSignIn } from '../../../application/use-cases/complete-sign-in.js';
import type { SavedTokens } from '../session/saved-tokens.js';
import { readPendingFlows, sessionOf } from '../session/session-state.js';
import type { SignInRecords } from '../session/sign-in-records.js';

export interface RemoteCallbackDeps {
  providers: readonly IdentityProviderInfo[];
  completeSignIn: CompleteSignIn;
  savedTokens: SavedTokens;
  signIns: SignInRecords;
  publicOrigin: string;
  clock: Clock;
}

/**
 * The remote authentication handlers: requests to a provider's callback path are owned
 * here, by the authentication middleware, not by the endpoint table (contract,
 * Authorization rules 7). On success the session is regenerated (new id: no fixation)
 * with the principal, and the browser goes to the return URL saved with the flow.
 */
export function remoteCallbacks(deps: RemoteCallbackDeps): Middleware {
  const byPath = new Map(deps.providers.map((provider) => [provider.callbackPath.toLowerCase(), provider]));
  return async function handleCallback(ctx, next) {
    const provider = ctx.method === 'GET' ? byPath.get(ctx.path.toLowerCase()) : undefined;
    if (!provider) return next();
    // The callback URL carries a code and state: keep it out of caches and Referer headers.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');

    const session = sessionOf(ctx);
    const pendingFlows = session.isNew ? [] : readPendingFlows(session.pendingFlows);
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : undefined;
    try {
      const result = await deps.completeSignIn.execute({
        provider: provider.key,
        callbackUrl: new URL(ctx.originalUrl, deps.publicOrigin),
        sessionBinding: !session.isNew && typeof session.flowBinding === 'string' ? session.flowBinding : '',
        pendingFlows,
      });
      const now = deps.clock.now();
      // Signing in again while signed in replaces the earlier sign-in and its tokens.
      await deps.savedTokens.drop(session);
      await deps.signIns.create(session, result.principal);
      Object.assign(session, { createdAt: now, lastSeenAt: now });
      await deps.savedTokens.save(session, result.tokens);
      if (result.pendingFlows.length > 0) session.pendingFlows = result.pendingFlows;
      else {
        delete session.pendingFlows;
        delete session.flowBinding;
      }
      await session.regenerate();
      ctx.redirect(result.returnUrl);
    } catch (error) {
      // The flow is spent whatever went wrong; forget it so a replay reads as unknown.
      if (!session.isNew && state) session.pendingFlows = pendingFlows.filter((key) => key !== flowKey(state));
      throw error;
    }
  };
}
