import type { Middleware } from 'koa';
import type { AuthenticateSession } from '../../../application/use-cases/authenticate-session.js';
import { browserSession } from '../session/browser-session.js';

/**
 * The cookie scheme's authenticate step: a request with a session gets its sign-in (the
 * principal, the anti-forgery token, the name pages show) on `ctx.state`. A request
 * without a session cookie touches no store. Whatever answers a signed-in user is about
 * that user, so no cache may keep it: pages, JSON and problem details alike.
 */
export function authentication(authenticate: AuthenticateSession): Middleware {
  return async function authenticateRequest(ctx, next) {
    const signIn = ctx.session?.isNew === false ? await authenticate.execute(browserSession(ctx)) : undefined;
    if (!signIn) return next();
    ctx.state.principal = signIn.principal;
    ctx.state.user = { name: signIn.userName };
    ctx.state.csrfToken = signIn.csrf;
    await next();
    ctx.set('Cache-Control', 'no-store');
  };
}
