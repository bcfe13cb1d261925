import type Koa from 'koa';
import type { ExtendableContext } from 'koa';
import type {} from 'koa-views'; // its declaration adds `render` to Koa's context
import { LoadedOnce } from '../loaded-once.js';

type Render = ExtendableContext['render'];

/**
 * Nunjucks views through koa-views: `ctx.render('login', locals)` renders views/login.njk.
 * Autoescaping is on for every template; templates are cached outside development. Every
 * template sees `applicationName` (the layout's title, header and footer).
 *
 * `render` is installed on `app.context` once (koa-views' documented way to extend the
 * context) rather than by a middleware that builds a render closure on every request, and
 * koa-views and nunjucks are imported at the first render: probes, JSON answers and
 * redirects never need them, and start-up does not wait for them (npm run bench, cold start).
 */
export function installViews(app: Koa, viewsDir: string, cache: boolean, applicationName: string): void {
  const renderer = new LoadedOnce(() => loadRenderer(viewsDir, cache, applicationName));
  app.context.render = async function render(this: ExtendableContext, viewPath: string, locals?: unknown) {
    return (await renderer.get()).call(this, viewPath, locals);
  };
}

async function loadRenderer(viewsDir: string, cache: boolean, applicationName: string): Promise<Render> {
  const [{ default: views }, { default: nunjucks }] = await Promise.all([import('koa-views'), import('nunjucks')]);
  const environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(viewsDir, { noCache: !cache }), {
    autoescape: true,
    throwOnUndefined: false,
  });
  environment.addGlobal('applicationName', applicationName);
  const extendContext = views(viewsDir, {
    extension: 'njk',
    map: { njk: 'nunjucks' },
    options: { nunjucksEnv: environment, cache },
  }) as unknown as () => Render;
  // Called without a context, koa-views returns the render function for app.context.
  return extendContext();
}
