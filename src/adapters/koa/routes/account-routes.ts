import { renderLoginPage, type LoginPageDeps } from './login-page.js';
import type { SignOut } from '../../../application/use-cases/sign-out.js';
import { allowAnonymous, authorize } from '../../../domain/authorization/endpoint-metadata.js';
import { validateReturnUrl } from '../../../domain/return-url.js';
import { readVerifiedForm } from '../anti-forgery.js';
import { auditRequest } from '../audit-request.js';
import { redirectAfterForm } from '../form-redirect.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import { singleQuery } from '../query.js';
import { browserSession } from '../session/browser-session.js';
import type { SignedOutNotice } from '../signed-out-notice.js';

export interface AccountRouteDeps extends LoginPageDeps {
  signOut: SignOut;
  /** The origin forms must come from (Hosting:PublicOrigin); empty means the request's own origin. */
  publicOrigin: string;
  signedOutNotice: SignedOutNotice;
  /** The origins the CSP `form-action` names besides this site (form-redirect.ts). */
  formActionOrigins: readonly string[];
}

/** `/Account/Login`, `/Account/Logout` and `/Account/AccessDenied`. */
export function accountRoutes(deps: AccountRouteDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: RoutePaths.login,
      metadata: allowAnonymous(),
      handler: async (ctx) => {
        const returnUrl = validateReturnUrl(singleQuery(ctx, 'returnUrl'));
        // Used up whoever looks: a signed-in browser is not told it has been signed out.
        const signedOut = deps.signedOutNotice.take(ctx) && !ctx.state.principal;
        await renderLoginPage(ctx, deps, { returnUrl, signedOut });
      },
    },
    {
      method: 'POST',
      path: RoutePaths.logout,
      metadata: authorize(),
      handler: async (ctx) => {
        await readVerifiedForm(ctx, deps.publicOrigin);
        const { providerSignOutUrl } = await deps.signOut.execute(browserSession(ctx), auditRequest(ctx));
        deps.signedOutNotice.set(ctx);
        ctx.set('Cache-Control', 'no-store');
        // Through the provider's logout when it has one (it sends the browser back to `/`,
        // which challenges to the login page), otherwise straight to the login page. A
        // connection's provider is reached through a page (form-redirect.ts).
        await redirectAfterForm(ctx, providerSignOutUrl ?? '/Account/Login', deps.formActionOrigins);
      },
    },
    {
      method: 'GET',
      path: RoutePaths.accessDenied,
      metadata: allowAnonymous(),
      // Anonymous and redirect-free, so failure handling can never loop.
      handler: async (ctx) => {
        await ctx.render('access-denied', {});
        ctx.status = 403;
      },
    },
  ];
}
