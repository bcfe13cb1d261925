import type { Context } from 'koa';
import { FLOW_LIFETIME_MS } from '../../application/sign-in/flow-records.js';

/**
 * The cookie that binds pending sign-ins to the browser that started them: a random value
 * (256 bits) stored with each flow and compared when the provider's answer arrives.
 * HttpOnly, `SameSite=Lax` (it travels with the provider's redirect back), `Secure` in
 * production, and it lasts as long as a sign-in may take. It is kept apart from the
 * session cookie so that an anonymous challenge stores no session at all, and the same
 * value serves every tab signing in at once.
 */
export interface FlowBindingCookie {
  read(ctx: Context): string | undefined;
  write(ctx: Context, value: string): void;
}

const VALUE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function flowBindingCookie(name: string, secure: boolean): FlowBindingCookie {
  const options = { httpOnly: true, sameSite: 'lax', secure, signed: false, overwrite: true, path: '/' } as const;
  return {
    read(ctx) {
      const value = ctx.cookies.get(name, { signed: false });
      return value !== undefined && VALUE_SHAPE.test(value) ? value : undefined;
    },
    write(ctx, value) {
      ctx.cookies.set(name, value, { ...options, maxAge: FLOW_LIFETIME_MS });
    },
  };
}
