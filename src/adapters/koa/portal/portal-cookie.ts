import type { Context } from 'koa';
import { PORTAL_IDLE_MS } from '../../../application/portal/portal-sessions.js';

/** Every page of the portal is under this path; its cookie is sent there only. */
export const PORTAL_PATH = '/setup/portal';

const VALUE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The setup portal's cookie: its own name, sent to the portal's path only, HttpOnly,
 * `SameSite=Strict` (no other site can make the browser send it, not even a link: the portal
 * is entered through the link's own page, whose button is on this site), `Secure` in
 * production, and living as long as the portal's idle timeout. It is never the
 * application's session cookie, so an IT admin in the portal is signed in to nothing else.
 */
export interface PortalCookie {
  read(ctx: Context): string | undefined;
  write(ctx: Context, value: string): void;
  clear(ctx: Context): void;
}

export function portalCookie(name: string, secure: boolean): PortalCookie {
  const options = {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    signed: false,
    overwrite: true,
    path: PORTAL_PATH,
  } as const;
  return {
    read(ctx) {
      const value = ctx.cookies.get(name, { signed: false });
      return value !== undefined && VALUE_SHAPE.test(value) ? value : undefined;
    },
    write(ctx, value) {
      ctx.cookies.set(name, value, { ...options, maxAge: PORTAL_IDLE_MS });
    },
    clear(ctx) {
      ctx.cookies.set(name, '', { ...options, maxAge: 0 });
    },
  };
}
