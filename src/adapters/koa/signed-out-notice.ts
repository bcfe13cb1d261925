import type { Context } from 'koa';

/**
 * "You have been signed out" on the login page, without a new anonymous endpoint and
 * without anything a stranger can put on the page. Logout sets this cookie; the login
 * page shows its fixed sentence when the cookie is there and removes it at once, so the
 * sentence appears once.
 *
 * A cookie rather than a query flag on the login page, because the way back from the
 * provider's logout is its registered post-logout redirect URI (`PublicOrigin/`), which
 * carries no flag of ours: `/` then challenges to the login page and the cookie travels
 * along (`SameSite=Lax` cookies go with top-level GET navigations, the provider's
 * redirect included). It also means a link from elsewhere cannot make the page claim a
 * sign-out that did not happen: only our logout handler (authenticated, anti-forgery
 * checked) sets it.
 *
 * It holds no secret and nothing from the request: the value is the constant `1`, the
 * page renders a fixed sentence, nothing is redirected differently. HttpOnly (no script
 * needs it), `Secure` in production (where the session cookie name, and so this one,
 * carries the `__Host-` prefix, so a sibling subdomain cannot plant it), and short-lived:
 * a sign-out not followed by the login page within a few minutes says nothing later.
 */
export interface SignedOutNotice {
  /** After a logout: the next login page says so. */
  set(ctx: Context): void;
  /** On the login page: true when a logout just happened; the notice is used up. */
  take(ctx: Context): boolean;
}

/** Long enough to confirm the sign-out at the provider, short enough not to surprise anyone later. */
export const SIGNED_OUT_NOTICE_LIFETIME_MS = 5 * 60 * 1000;

export function signedOutNotice(name: string, secure: boolean): SignedOutNotice {
  const options = { httpOnly: true, sameSite: 'lax', secure, signed: false, overwrite: true, path: '/' } as const;
  return {
    set(ctx) {
      ctx.cookies.set(name, '1', { ...options, maxAge: SIGNED_OUT_NOTICE_LIFETIME_MS });
    },
    take(ctx) {
      const value = ctx.cookies.get(name, { signed: false });
      if (value === undefined) return false;
      ctx.cookies.set(name, null, options);
      return value === '1';
    },
  };
}
