import type { Context, Middleware } from 'koa';
import type { PortalSession, PortalSessions } from '../../../application/portal/portal-sessions.js';
import { singleField } from '../../single-field.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { portalEndpoint, portalOf, readPortalForm } from './portal-guard.js';
import {
  PROTOCOL_NAMES,
  VENDOR_GUIDES,
  isGuideProtocol,
  protocolsOf,
  vendorGuide,
  type GuideProtocol,
} from './vendor-guides.js';

export interface ProviderStepDeps {
  sessions: PortalSessions;
  /** `Hosting:PublicOrigin` (empty: the request's own): where the form must come from. */
  publicOrigin: string;
}

/** The form holds two short choices and its token: anything much larger is not this form. */
const FORM_LIMIT_BYTES = 2048;

type Choice = { vendor: string; protocol: GuideProtocol } | { problem: string; field: 'vendor' | 'protocol' };

/**
 * Step 1, "Your identity provider" (`/setup/portal/provider`): the IT admin chooses their
 * vendor and the protocol to connect it with, among those it is offered with here
 * (vendor-guides.ts). The choice is kept on the portal session: it decides the next
 * step's guide and values. An unknown vendor or protocol, or one the vendor is not offered
 * with, is refused with the form again (400), and nothing is kept.
 */
export function providerRoutes(deps: ProviderStepDeps, guard: Middleware): Endpoint[] {
  return [
    portalEndpoint('GET', RoutePaths.portalProvider, guard, async (ctx) => {
      const { session } = portalOf(ctx);
      await renderForm(ctx, session, { vendor: session.vendor, protocol: session.protocol });
    }),
    portalEndpoint('POST', RoutePaths.portalProvider, guard, async (ctx) => {
      const form = await readPortalForm(ctx, deps.publicOrigin, FORM_LIMIT_BYTES);
      const { session, token } = portalOf(ctx);
      const choice = readChoice(form);
      if ('problem' in choice) {
        ctx.status = 400;
        // Only a known vendor is shown selected again: nothing the form sent is echoed.
        const vendor = vendorGuide(singleField(form, 'vendor'))?.id;
        await renderForm(ctx, session, { vendor, protocol: undefined }, choice);
        return;
      }
      if (!(await deps.sessions.update(token, { ...session, vendor: choice.vendor, protocol: choice.protocol }))) {
        ctx.status = 401;
        await ctx.render('portal/ended', {});
        return;
      }
      ctx.status = 303;
      ctx.redirect(RoutePaths.portalServiceProvider);
    }),
  ];
}

function readChoice(form: URLSearchParams): Choice {
  const guide = vendorGuide(singleField(form, 'vendor'));
  if (!guide) return { field: 'vendor', problem: 'Choose your identity provider from the list.' };
  const offered = protocolsOf(guide);
  const protocol = singleField(form, 'protocol') ?? '';
  if (protocol === '' && offered.length === 1) return { vendor: guide.id, protocol: offered[0] as GuideProtocol };
  if (!isGuideProtocol(protocol)) {
    return { field: 'protocol', problem: `Choose how ${guide.name} signs people in: ${offeredNames(offered)}.` };
  }
  if (!offered.includes(protocol)) {
    return {
      field: 'protocol',
      problem: `${guide.name} is set up here with ${offeredNames(offered)} only.${guide.note ? ` ${guide.note}` : ''}`,
    };
  }
  return { vendor: guide.id, protocol };
}

const offeredNames = (offered: readonly GuideProtocol[]) => offered.map((id) => PROTOCOL_NAMES[id]).join(' or ');

async function renderForm(
  ctx: Context,
  session: PortalSession,
  selected: { vendor: string | undefined; protocol: string | undefined },
  problem?: { problem: string; field: string },
): Promise<void> {
  sendOriginWithForms(ctx);
  await ctx.render('portal/provider', {
    session,
    csrfToken: session.csrf,
    selected,
    problem,
    vendors: VENDOR_GUIDES.map((guide) => ({
      id: guide.id,
      name: guide.name,
      offered: offeredNames(protocolsOf(guide)),
    })),
    protocols: (Object.keys(PROTOCOL_NAMES) as GuideProtocol[]).map((id) => ({ id, name: PROTOCOL_NAMES[id] })),
  });
}

/**
 * A portal page whose forms post to this site (the choice here; "Leave the setup" on every
 * page): under the portal's `Referrer-Policy: no-referrer` a browser sends `Origin: null`
 * with them (Fetch, "serializing a request origin"), which the anti-forgery check refuses;
 * `same-origin` keeps the Origin header and still sends no Referer to another site (the
 * vendor's documentation, the identity provider).
 */
export function sendOriginWithForms(ctx: Context): void {
  ctx.set('referrer-policy', 'same-origin');
}
