import type { Context } from 'koa';
import type { BrowserSession, SessionFields } from '../../../application/sign-in/session-fields.js';
import { removeSessionRecord } from './session-middleware.js';

type KoaSession = NonNullable<Context['session']>;

/** The request's session as the use cases see it, over koa-session's `ctx.session`. */
export function browserSession(ctx: Context): BrowserSession {
  const session = ctx.session;
  if (!session) throw new Error('session middleware is not mounted');
  return {
    fields: session as KoaSession & SessionFields,
    rotate: (fields) => rotate(session, fields),
    end: async () => {
      await removeSessionRecord(ctx);
      ctx.session = null; // clears the cookie (and removes the record again) when the request ends
    },
  };
}

/**
 * koa-session's `regenerate()` removes the old record, draws a new id and saves the
 * session's current data under it. The new fields go in first; if anything fails, the
 * loaded data comes back, so that the save koa-session makes at the end of every request
 * finds nothing changed and writes no signed-in state under the old id.
 */
async function rotate(session: KoaSession, fields: SessionFields): Promise<void> {
  const loaded = session.toJSON();
  replaceData(session, fields);
  try {
    await session.regenerate();
  } catch (error) {
    replaceData(session, loaded);
    throw error;
  }
}

function replaceData(session: KoaSession, data: object): void {
  for (const name of Object.keys(session.toJSON())) Reflect.deleteProperty(session, name);
  Object.assign(session, data);
}
