import type { Middleware } from 'koa';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { portalEndpoint, portalOf } from './portal-guard.js';
import { GUIDES_READ, PROTOCOL_NAMES, VENDOR_GUIDES, stepSegments, type GuideProtocol } from './vendor-guides.js';

/**
 * `GET /setup/portal/help`: the page for the customer's IT admin, linked from every portal
 * page: what the portal will ask, and each vendor's own steps for each protocol it offers,
 * from the same guides as the "What to enter there" step (docs/setup-portal-it-admin.md is
 * its copy for operators to send ahead).
 */
export function helpRoutes(guard: Middleware): Endpoint[] {
  return [
    portalEndpoint('GET', RoutePaths.portalHelp, guard, async (ctx) => {
      const { session } = portalOf(ctx);
      await ctx.render('portal/help', {
        session,
        csrfToken: session.csrf,
        guidesRead: GUIDES_READ,
        vendors: VENDOR_GUIDES.map((guide) => ({
          id: guide.id,
          name: guide.name,
          note: guide.note,
          protocols: (Object.keys(guide.protocols) as GuideProtocol[]).map((protocol) => ({
            name: PROTOCOL_NAMES[protocol],
            docs: guide.protocols[protocol]?.docs,
            steps: (guide.protocols[protocol]?.steps ?? []).map(stepSegments),
          })),
        })),
      });
    }),
  ];
}
