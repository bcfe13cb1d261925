import type { Context, Middleware } from 'koa';
import type { PortalSession, PortalSessions } from '../../../application/portal/portal-sessions.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import { verifyAntiForgery } from '../anti-forgery.js';
import type { Endpoint } from '../endpoint.js';
import { readForm } from '../read-form.js';
import { singleField } from '../../single-field.js';
import type { PortalCookie } from './portal-cookie.js';

/** The portal session a request carries, once the guard let it through. */
export interface PortalRequest {
  session: PortalSession;
  /** The cookie's token: the session's key, and the key its test results are kept under. */
  token: string;
}

const requests = new WeakMap<Context, PortalRequest>();

/** The request's portal session (the guard ran before the handler). */
export function portalOf(ctx: Context): PortalRequest {
  const found = requests.get(ctx);
  if (!found) throw new Error('a portal page was served without its guard');
  return found;
}

export interface PortalGuardDeps {
  sessions: PortalSessions;
  cookie: PortalCookie;
  /** The optional steps this deployment offers, which every portal page's navigation links (`directory`: directory sync). */
  optionalSteps?: readonly 'directory'[];
}

/**
 * The setup portal's own authorization: its pages are anonymous to the application (no
 * sign-in here, none created) and open only to the portal session the cookie names, for the
 * organization its link was for. Without one (ended, idle, never opened), a page saying
 * so, 401; never the application's login page.
 */
export function portalGuard(deps: PortalGuardDeps): Middleware {
  return async function portalSession(ctx, next) {
    const token = deps.cookie.read(ctx);
    const session = await deps.sessions.load(token);
    if (!session || token === undefined) {
      ctx.status = 401;
      ctx.set('cache-control', 'no-store');
      await ctx.render('portal/ended', {});
      return;
    }
    requests.set(ctx, { session, token });
    // Every page's layout reads them (koa-views hands ctx.state to the template).
    ctx.state.portalOptionalSteps = deps.optionalSteps ?? [];
    ctx.set('cache-control', 'no-store');
    // No Referer to another site (the page's URL is the portal's), and this site's forms keep
    // their Origin header: under `no-referrer` Chromium posts them with `Origin: null`.
    ctx.set('referrer-policy', 'same-origin');
    return next();
  };
}

/**
 * A portal endpoint: anonymous to the application's authorization (the reviewed allowlist
 * says why), behind the portal's guard.
 */
export function portalEndpoint(
  method: Endpoint['method'],
  path: string,
  guard: Middleware,
  handler: Middleware,
): Endpoint {
  return { method, path, metadata: allowAnonymous(), authenticate: guard, handler };
}

/** A portal form's fields, once its anti-forgery token (the portal session's) and its provenance pass. */
export async function readPortalForm(
  ctx: Context,
  publicOrigin: string,
  limitBytes?: number,
): Promise<URLSearchParams> {
  const form = await readForm(ctx, limitBytes);
  verifyAntiForgery(
    ctx,
    publicOrigin || `${ctx.protocol}://${ctx.host}`,
    portalOf(ctx).session.csrf,
    singleField(form, '_csrf'),
  );
  return form;
}
