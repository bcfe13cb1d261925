import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import type { Context } from 'koa';
import type { IdentityProviders } from '../../../application/identity-providers.js';
import { randomToken } from '../../../application/random-token.js';
import type { FlowBindingCookie } from '../flow-binding-cookie.js';

export interface LoginPageDeps {
  /** The providers the login page lists (connections only when shown there), and whether it offers the e-mail form. */
  providers: Pick<IdentityProviders, 'listed' | 'hasConnections'>;
  authenticationEnabled: boolean;
  flowBinding: FlowBindingCookie;
  /** Outside production, the login page without providers also points at `npm run demo`. */
  developmentHints: boolean;
}

export interface LoginPageState {
  returnUrl: string;
  signedOut?: boolean;
  /** What the person typed in the e-mail form, shown again with `discoveryError`. */
  email?: string;
  discoveryError?: string;
}

/**
 * The login page: the providers to choose from and, where connections exist, "Sign in
 * with your work e-mail". The e-mail form is anonymous, so its anti-forgery token cannot
 * come from a sign-in: it is derived from the browser's flow-binding cookie (set here when
 * the browser has none; a random value, no server state), which only this site can read
 * or set, and checked with the browser's provenance headers (discoveryFormToken).
 */
export async function renderLoginPage(ctx: Context, deps: LoginPageDeps, state: LoginPageState): Promise<void> {
  const discovery = deps.authenticationEnabled && deps.providers.hasConnections && !ctx.state.principal;
  let discoveryToken: string | undefined;
  if (discovery) {
    const binding = deps.flowBinding.read(ctx) ?? randomToken(32);
    deps.flowBinding.write(ctx, binding);
    discoveryToken = discoveryFormToken(binding);
  }
  ctx.set('Cache-Control', 'no-store');
  await ctx.render('login', {
    authenticationEnabled: deps.authenticationEnabled,
    developmentHints: deps.developmentHints,
    signedOut: state.signedOut === true,
    discovery,
    discoveryToken,
    email: state.email,
    discoveryError: state.discoveryError,
    providers: deps.providers.listed().map((provider) => ({
      displayName: provider.displayName,
      href: `/External/Challenge?provider=${encodeURIComponent(provider.scheme)}&returnUrl=${encodeURIComponent(state.returnUrl)}`,
    })),
    returnUrl: state.returnUrl,
  });
}

/** The e-mail form's anti-forgery token for a browser's flow binding: a hash, so the page never shows the binding itself. */
export function discoveryFormToken(binding: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(`discover\n${binding}`)));
}
