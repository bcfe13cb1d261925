import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';
import { renderError } from '../render-error.js';

/**
 * `GET /Home/Error/{statusCode?}`: the anonymous terminal error page. Without a code it
 * reports a generic 500; a code outside 400-599 is treated as a page not found.
 */
export function errorRoutes(): Endpoint[] {
  return [
    {
      method: 'GET',
      path: RoutePaths.error,
      metadata: allowAnonymous(),
      handler: async (ctx) => {
        const raw = ctx.params.statusCode;
        const code = raw === undefined ? 500 : /^\d{3}$/.test(raw) ? Number(raw) : 404;
        await renderError(ctx, { status: code >= 400 && code <= 599 ? code : 404 });
      },
    },
  ];
}
