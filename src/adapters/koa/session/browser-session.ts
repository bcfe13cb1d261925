import type { Context } from 'koa';
import type { BrowserSession, SessionFields } from '../../../application/sign-in/session-fields.js';
import { sessionTokenOf } from './session-middleware.js';
import { isSessionToken, sessionStoreKey } from './session-token.js';

type KoaSession = NonNullable<Context['session']>;

/** The request's session as the use cases see it, over koa-session's `ctx.session`. */
export function browserSession(ctx: Context): BrowserSession {
  if (!ctx.session) throw new Error('session middleware is not mounted');
  return new KoaBrowserSession(ctx, ctx.session);
}

/**
 * Every signed-in request makes one, so it is a class: its getter and methods live on the
 * prototype, and each request allocates one small object and no closure. As an object
 * literal with a getter and closures over the context, it cost about 80,000 instructions
 * per request (341,000 against 258,000 under callgrind), and every request's objects
 * survived the young-generation collections: 2.7 MB promoted per scavenge, a full
 * mark-compact about once a second under load (none with the class). V8 keeps a literal's
 * getter in an accessor pair outside the young generation, which apparently held each
 * request's context alive (docs/performance.md).
 */
class KoaBrowserSession implements BrowserSession {
  constructor(
    private readonly ctx: Context,
    private readonly session: KoaSession,
  ) {}

  get fields(): SessionFields {
    return this.session as KoaSession & SessionFields;
  }

  get handle(): string | undefined {
    return handleOf(this.ctx);
  }

  async rotate(fields: SessionFields): Promise<string> {
    await rotate(this.session, fields);
    return handleOf(this.ctx) ?? '';
  }

  end(): void {
    this.ctx.session = null; // removes the record and clears the cookie when the request ends
  }
}

/** The store key of the request's session (koa-session's external key is the cookie token). */
function handleOf(ctx: Context): string | undefined {
  if (!ctx.session) return undefined; // ended in this request
  const token = sessionTokenOf(ctx);
  return token !== undefined && isSessionToken(token) ? sessionStoreKey(token) : undefined;
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
