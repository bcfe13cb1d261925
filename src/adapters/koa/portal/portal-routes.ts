import type { Context, Middleware } from 'koa';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';
import type { PortalSessions } from '../../../application/portal/portal-sessions.js';
import type { PortalSetup } from '../../../application/portal/portal-setup.js';
import type { SetupLinks } from '../../../application/portal/setup-links.js';
import type { PortalTestResults } from '../../../application/portal/test-results.js';
import type { BeginSignIn } from '../../../application/use-cases/begin-sign-in.js';
import { randomToken } from '../../../application/random-token.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import { GatehouseError, isGatehouseError } from '../../../domain/errors.js';
import { auditRequest } from '../audit-request.js';
import type { Endpoint } from '../endpoint.js';
import type { FlowBindingCookie } from '../flow-binding-cookie.js';
import { redirectAfterForm } from '../form-redirect.js';
import { RoutePaths } from '../routes/route-paths.js';
import type { CertificatesSection } from './certificates-section.js';
import type { PortalCookie } from './portal-cookie.js';
import { portalEndpoint, portalGuard, portalOf, readPortalForm } from './portal-guard.js';
import { vendorGuide } from './vendor-guides.js';

const TEST_REFUSED =
  'Your identity provider did not let the test sign-in start. Check the client ID and secret, or the metadata, under What it gave you, and try again.';
/** What the test page says when the sign-in cannot even start, by the refusal's code. */
const TEST_REFUSALS: Readonly<Record<string, string>> = {
  'idp.unreachable':
    'Your identity provider could not be reached. Check its address under What it gave you, or try again in a moment.',
  'idp.timeout': 'Your identity provider did not answer in time. Try again in a moment.',
  'idp.unavailable':
    'This connection could not be set up from what was saved: check the values under What it gave you.',
};

export interface PortalDeps {
  links: SetupLinks;
  sessions: PortalSessions;
  cookie: PortalCookie;
  setup: PortalSetup;
  tests: PortalTestResults;
  beginSignIn: BeginSignIn;
  flowBinding: FlowBindingCookie;
  /** `Hosting:PublicOrigin` (empty: the request's own): where the portal's forms must come from. */
  publicOrigin: string;
  /** The steps' own pages (identity provider, domains ...), each a module of its own. */
  steps: (guard: Middleware) => Endpoint[];
  /** The optional steps offered (their pages among `steps`): every page's navigation links them. */
  optionalSteps?: readonly 'directory'[];
  /** The overview's section on the identity provider's signing certificates (certificates-section.ts); absent, none. */
  certificates?: (organization: string, connection: string) => Promise<CertificatesSection | undefined>;
}

/**
 * The setup portal (docs/connections.md, The setup portal): a setup link's own page, which
 * spends the link only when its admin presses the button (a mail scanner opening the link
 * spends nothing), the portal session that follows, its overview, the test sign-in and the
 * activation. The pages of the other steps come from `steps`.
 */
export function portalRoutes(deps: PortalDeps): Endpoint[] {
  const guard = portalGuard(deps);
  const origin = (ctx: Context) => deps.publicOrigin || `${ctx.protocol}://${ctx.host}`;
  return [
    {
      method: 'GET',
      path: RoutePaths.setupLink,
      metadata: allowAnonymous(),
      handler: async (ctx) => {
        keepLinkPrivate(ctx);
        const link = await deps.links.peek(String(ctx.params.token ?? ''));
        if (!link) return linkInvalid(ctx);
        await ctx.render('portal/link', { organization: link.organization, expiresAt: new Date(link.expiresAt) });
      },
    },
    {
      method: 'POST',
      path: RoutePaths.setupLink,
      metadata: allowAnonymous(),
      handler: async (ctx) => {
        keepLinkPrivate(ctx);
        // The button is this site's own page: a form another site posts here spends nothing.
        const from = ctx.get('origin');
        const site = ctx.get('sec-fetch-site');
        if ((from !== '' && from !== origin(ctx)) || (site !== '' && site !== 'same-origin')) {
          throw new GatehouseError('antiforgery.invalid', 'Open the setup link itself, then press its button.', {
            safe: true,
          });
        }
        const link = await deps.links.open(String(ctx.params.token ?? ''), auditRequest(ctx));
        if (!link) return linkInvalid(ctx);
        const { token } = await deps.sessions.start(link);
        deps.cookie.write(ctx, token);
        ctx.status = 303;
        ctx.redirect(RoutePaths.portal);
      },
    },
    portalEndpoint('GET', RoutePaths.portal, guard, async (ctx) => {
      const { session, token } = portalOf(ctx);
      const state = await deps.setup.state(session, await deps.tests.latest(token));
      const certificates = await deps.certificates?.(session.organization, session.connection);
      await ctx.render('portal/overview', {
        vendorName: vendorGuide(session.vendor)?.name,
        session,
        state,
        certificates,
        csrfToken: session.csrf,
      });
    }),
    portalEndpoint('POST', RoutePaths.portalEnd, guard, async (ctx) => {
      await readPortalForm(ctx, deps.publicOrigin);
      await deps.sessions.end(portalOf(ctx).token);
      deps.cookie.clear(ctx);
      await ctx.render('portal/ended', { signedOut: true });
    }),
    portalEndpoint('GET', RoutePaths.portalTest, guard, async (ctx) => {
      const { session, token } = portalOf(ctx);
      const state = await deps.setup.state(session, await deps.tests.latest(token));
      await ctx.render('portal/test', { session, state, csrfToken: session.csrf });
    }),
    portalEndpoint('POST', RoutePaths.portalTest, guard, async (ctx) => {
      await readPortalForm(ctx, deps.publicOrigin);
      const { session, token } = portalOf(ctx);
      // Only the portal's own connection, its organization's and written through the portal or
      // the API: a connection of the same name the operator or another organization holds is not
      // this portal's to test.
      const state = await deps.setup.state(session, undefined);
      if (!state.connection) {
        ctx.status = 409;
        await ctx.render('portal/test', { session, state, csrfToken: session.csrf });
        return;
      }
      const binding = deps.flowBinding.read(ctx) ?? randomToken(32);
      let redirectUrl: string;
      try {
        ({ redirectUrl } = await deps.beginSignIn.execute({
          scheme: session.connection,
          returnUrl: RoutePaths.portalTestResult,
          binding,
          client: ctx.ip,
          request: auditRequest(ctx),
          // A change of an activated connection waits as a draft: the test is the draft's.
          portalTest: { portal: token, connection: session.connection, draft: await deps.setup.draftOf(session) },
        }));
      } catch (error) {
        // The provider refused to start it (a pushed authorization request with a wrong
        // client ID or secret, say), or it is out of reach: the test page says so, in words.
        if (!isGatehouseError(error) || !error.code.startsWith('idp.')) throw error;
        ctx.status = error.code === 'idp.unreachable' || error.code === 'idp.timeout' ? 503 : 502;
        const state = await deps.setup.state(session, await deps.tests.latest(token));
        await ctx.render('portal/test', {
          session,
          state,
          csrfToken: session.csrf,
          problem: TEST_REFUSALS[error.code] ?? TEST_REFUSED,
        });
        return;
      }
      deps.flowBinding.write(ctx, binding);
      // The identity provider is another site, which the test page's CSP form-action does not
      // name: a browser would not follow a redirect there, and goes on through a page of ours
      // (form-redirect.ts); another client gets the 303.
      await redirectAfterForm(ctx, redirectUrl, []);
      if (ctx.status === 302) ctx.status = 303;
    }),
    {
      // The identity provider's answer comes back from its site: a `SameSite=Strict` cookie does
      // not travel on that redirect. Without it, a page whose link (this site's own) brings it.
      method: 'GET',
      path: RoutePaths.portalTestResult,
      metadata: allowAnonymous(),
      handler: async (ctx) => {
        ctx.set('cache-control', 'no-store');
        const token = deps.cookie.read(ctx);
        const session = await deps.sessions.load(token);
        if (!session || token === undefined) {
          await ctx.render('portal/continue', { next: RoutePaths.portalTestResult });
          return;
        }
        const result = await deps.tests.latest(token);
        const state = await deps.setup.state(session, result);
        await ctx.render('portal/test-result', { session, state, result, csrfToken: session.csrf });
      },
    },
    portalEndpoint('POST', RoutePaths.portalActivate, guard, async (ctx) => {
      await readPortalForm(ctx, deps.publicOrigin);
      const { session, token } = portalOf(ctx);
      try {
        await deps.setup.activate(session, await deps.tests.latest(token));
      } catch (error) {
        if (!(error instanceof AdministrationProblem)) throw error;
        ctx.status = error.kind === 'unavailable' ? 503 : 409;
        const state = await deps.setup.state(session, await deps.tests.latest(token));
        await ctx.render('portal/overview', {
          vendorName: vendorGuide(session.vendor)?.name,
          session,
          state,
          csrfToken: session.csrf,
          problem: error.detail,
        });
        return;
      }
      ctx.status = 303;
      ctx.redirect(RoutePaths.portal);
    }),
    ...deps.steps(guard),
  ];
}

/** A setup link's page holds its token in its URL: never cached, and its address sent to no other site. */
function keepLinkPrivate(ctx: Context): void {
  ctx.set('cache-control', 'no-store');
  ctx.set('referrer-policy', 'same-origin');
}

/** An unknown, spent, revoked or expired link: one page for all, saying to ask for a new one. */
async function linkInvalid(ctx: Context): Promise<void> {
  ctx.status = 404;
  await ctx.render('portal/link-invalid', {});
}
