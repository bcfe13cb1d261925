import type { Middleware } from 'koa';
import views from 'koa-views';
import nunjucks from 'nunjucks';

/**
 * Nunjucks views through koa-views: `ctx.render('login', locals)` renders views/login.njk.
 * Autoescaping is on for every template; templates are cached outside development.
 */
export function viewsMiddleware(viewsDir: string, cache: boolean): Middleware {
  const environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(viewsDir, { noCache: !cache }), {
    autoescape: true,
    throwOnUndefined: false,
  });
  return views(viewsDir, { extension: 'njk', map: { njk: 'nunjucks' }, options: { nunjucksEnv: environment, cache } }) as Middleware;
}
