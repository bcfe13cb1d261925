import type { IdentityProviderInfo } from '../../../application/ports/identity-provider.js';
import type { SignOut } from '../../../application/use-cases/sign-out.js';
import { allowAnonymous, authorize } from '../../../domain/authorization/endpoint-metadata.js';
import { validateReturnUrl } from '../../../domain/return-url.js';
import { readVerifiedForm } from '../anti-forgery.js';
import { auditRequest } from '../audit-request.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import { singleQuery } from '../query.js';
import { browserSession } from '../session/browser-session.js';
import type { SignedOutNotice } from '../signed-out-notice.js';

export interface AccountRouteDeps {
  providers: readonly IdentityProviderInfo[];
  authenticationEnabled: boolean;
  signOut: SignOut;
  /** The origin forms must come from (Hosting:PublicOrigin); empty means the request's own origin. */
  publicOrigin: string;
  signedOutNotice: SignedOutNotice;
  /** Outside production, the login page without providers also points at `npm run demo`. */
  developmentHints: boolean;
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
        ctx.set('Cache-Control', 'no-store');
        await ctx.render('login', {
          authenticationEnabled: deps.authenticationEnabled,
          developmentHints: deps.developmentHints,
          signedOut,
          providers: deps.providers.map((provider) => ({
            displayName: provider.displayName,
            href: `/External/Challenge?provider=${encodeURIComponent(provider.scheme)}&returnUrl=${encodeURIComponent(returnUrl)}`,
          })),
          returnUrl,
        });
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
        // which challenges to the login page), otherwise straight to the login page.
        ctx.redirect(providerSignOutUrl ?? '/Account/Login');
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
