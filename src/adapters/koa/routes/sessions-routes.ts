import type { IdentityProviders } from '../../../application/identity-providers.js';
import type { ManageSessions, SessionsToEnd } from '../../../application/use-cases/manage-sessions.js';
import { authorize } from '../../../domain/authorization/endpoint-metadata.js';
import { GatehouseError } from '../../../domain/errors.js';
import { readVerifiedForm } from '../anti-forgery.js';
import type { SignOut } from '../../../application/use-cases/sign-out.js';
import { auditRequest } from '../audit-request.js';
import { redirectAfterForm } from '../form-redirect.js';
import type { Endpoint } from '../endpoint.js';
import { singleField } from '../../single-field.js';
import { browserSession } from '../session/browser-session.js';
import type { SignedOutNotice } from '../signed-out-notice.js';
import { RoutePaths } from './route-paths.js';

export interface SessionsRouteDeps {
  manageSessions: ManageSessions;
  /** The registered providers: a session is shown with its provider's display name. */
  providers: Pick<IdentityProviders, 'displayNameOf'>;
  /** The origin forms must come from (Hosting:PublicOrigin); empty means the request's own origin. */
  publicOrigin: string;
  signedOutNotice: SignedOutNotice;
  /** "Sign out everywhere" signs this browser out as /Account/Logout does, at its provider too. */
  signOut: SignOut;
  /** The origins the CSP `form-action` names besides this site (form-redirect.ts). */
  formActionOrigins: readonly string[];
}

/** A public session id as the page writes it: 16 base64url characters. */
const SESSION_ID = /^[A-Za-z0-9_-]{16}$/;

/**
 * `GET /Account/Sessions`: the signed-in user's sessions on every instance (authenticated
 * by the fallback policy; with the fallback off an anonymous visitor sees none); `POST`
 * with `end` = a session's public id, `others` or `all` (signed in, anti-forgery checked)
 * ends them. Ending this browser's own session signs it out.
 */
export function sessionsRoutes(deps: SessionsRouteDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: RoutePaths.sessions,
      handler: async (ctx) => {
        // With authentication switched off no session exists at all: nothing to list.
        const sessions = ctx.session ? await deps.manageSessions.list(browserSession(ctx)) : [];
        ctx.set('Cache-Control', 'no-store');
        await ctx.render('sessions', {
          sessions: sessions.map((session) => ({
            ...session,
            providerName:
              (session.provider === undefined ? undefined : deps.providers.displayNameOf(session.provider)) ??
              session.provider,
            createdAt: new Date(session.createdAt).toISOString(),
            lastSeenAt: new Date(session.lastSeenAt).toISOString(),
          })),
          ended: ctx.query.ended === undefined ? undefined : Number(ctx.query.ended) || 0,
        });
      },
    },
    {
      method: 'POST',
      path: RoutePaths.sessions,
      // Like the logout: only a signed-in user has sessions to end, whatever the fallback says.
      metadata: authorize(),
      handler: async (ctx) => {
        const form = await readVerifiedForm(ctx, deps.publicOrigin);
        const which = sessionsToEnd(singleField(form, 'end'));
        const browser = browserSession(ctx);
        ctx.set('Cache-Control', 'no-store');
        if (which === 'all') {
          // The other browsers end here; this one signs out as /Account/Logout does, through
          // the provider's end-session when it has one: otherwise the provider's own session
          // would sign this browser straight back in at its next click.
          await deps.manageSessions.end(browser, 'others', auditRequest(ctx));
          const { providerSignOutUrl } = await deps.signOut.execute(browser, auditRequest(ctx));
          deps.signedOutNotice.set(ctx);
          await redirectAfterForm(ctx, providerSignOutUrl ?? '/Account/Login', deps.formActionOrigins);
          return;
        }
        const count = await deps.manageSessions.end(browser, which, auditRequest(ctx));
        if (browser.handle === undefined) {
          // This browser's own session ended: to the login page, which says so.
          deps.signedOutNotice.set(ctx);
          ctx.redirect('/Account/Login');
          return;
        }
        ctx.redirect(`${RoutePaths.sessions}?ended=${count}`);
      },
    },
  ];
}

function sessionsToEnd(value: string | undefined): SessionsToEnd {
  if (value === 'others' || value === 'all') return value;
  if (value !== undefined && SESSION_ID.test(value)) return { session: value };
  throw new GatehouseError('request.invalid_field', 'Choose which sessions to sign out.', { safe: true });
}
