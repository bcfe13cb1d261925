import type { Context, Middleware } from 'koa';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';
import type { DomainView } from '../../../application/administration/connection-views.js';
import type { PortalSetup } from '../../../application/portal/portal-setup.js';
import { singleField } from '../../single-field.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { statusOf } from './identity-provider-step.js';
import { portalEndpoint, portalOf, readPortalForm } from './portal-guard.js';
import { sendOriginWithForms } from './provider-step.js';

/** A TXT record to publish, as the domains step shows it. */
export interface DomainRecord {
  name: string;
  value: string;
}

/** A sentence and a command saying how to publish `record` where the deployment's composer runs the DNS. */
export type DomainRecordHelp = (record: DomainRecord) => { text: string; command: string };

export interface DomainsStepDeps {
  setup: PortalSetup;
  /** `Hosting:PublicOrigin` (empty: the request's own): where the forms must come from. */
  publicOrigin: string;
  /**
   * How to publish a record where this deployment's DNS is one the operator runs (the demo's
   * DNS server): a sentence and a command, shown beside the record. Absent: the record alone,
   * which the admin publishes at their DNS host.
   */
  recordHelp?: DomainRecordHelp;
}

/** A domain is at most 253 characters: anything much larger is not this form. */
const FORM_LIMIT_BYTES = 2048;

/** What the page says after an action: a success, or a refusal (with the record to publish, when there is one). */
interface Outcome {
  domain?: string;
  field?: 'add';
  notice?: string;
  problem?: string;
  record?: DomainRecord;
}

/**
 * Step 4, "Your domains" (`/setup/portal/domains`): the portal's connection's domains, each
 * with its state and the TXT record that proves it; adding one (a domain another
 * organization proved is refused, with the reason), verifying one (its record found: it
 * routes once the connection is activated; missing: the record to publish, again; the DNS
 * not answering: said so), and removing one. Every action is on the portal session's own
 * connection, through PortalSetup: a domain of another connection is not found here.
 */
export function domainsRoutes(deps: DomainsStepDeps, guard: Middleware): Endpoint[] {
  const render = async (ctx: Context, outcome: Outcome = {}) => {
    const { session } = portalOf(ctx);
    sendOriginWithForms(ctx);
    const state = await deps.setup.state(session, undefined);
    await ctx.render('portal/domains', {
      session,
      csrfToken: session.csrf,
      connection: state.connection,
      activated: state.activated,
      domains: state.domains.map((domain) => shownDomain(domain, deps.recordHelp)),
      outcome,
    });
  };
  /** Runs an action on a domain of the form; a refusal is the page again, with its status and words. */
  const act = (path: string, action: (ctx: Context, domain: string) => Promise<Outcome | undefined>) =>
    portalEndpoint('POST', path, guard, async (ctx) => {
      const form = await readPortalForm(ctx, deps.publicOrigin, FORM_LIMIT_BYTES);
      const domain = (singleField(form, 'domain') ?? '').trim();
      if (domain === '' || domain.length > 253) {
        ctx.status = 422;
        await render(ctx, {
          field: 'add',
          problem: 'Give a domain: the part after @ in an e-mail address (example.com).',
        });
        return;
      }
      let outcome: Outcome | undefined;
      try {
        outcome = await action(ctx, domain);
      } catch (error) {
        if (!(error instanceof AdministrationProblem)) throw error;
        ctx.status = statusOf(error);
        await render(ctx, refusalOf(error, domain, path === RoutePaths.portalDomains));
        return;
      }
      if (!outcome) {
        ctx.status = 303;
        ctx.redirect(RoutePaths.portalDomains);
        return;
      }
      await render(ctx, outcome);
    });
  return [
    portalEndpoint('GET', RoutePaths.portalDomains, guard, async (ctx) => render(ctx)),
    act(RoutePaths.portalDomains, async (ctx, domain) => {
      await deps.setup.addDomain(portalOf(ctx).session, domain);
      return undefined;
    }),
    act(RoutePaths.portalDomainVerify, async (ctx, domain) => {
      const verified = await deps.setup.verifyDomain(portalOf(ctx).session, domain);
      return {
        domain: verified.domain,
        notice: `${verified.domain} is verified: its TXT record was found. Keep the record published: ${verified.domain} is checked again now and then.`,
      };
    }),
    act(RoutePaths.portalDomainRemove, async (ctx, domain) => {
      await deps.setup.removeDomain(portalOf(ctx).session, domain);
      return undefined;
    }),
  ];
}

function shownDomain(domain: DomainView, recordHelp: DomainsStepDeps['recordHelp']) {
  const verified = domain.verified === true || domain.verified === 'operator';
  return {
    domain: domain.domain,
    verified,
    verifiedAt: domain.verifiedAt,
    wildcard: domain.domain.startsWith('*.'),
    record: domain.record,
    help: domain.record && !verified && recordHelp ? recordHelp(domain.record) : undefined,
  };
}

/** A refusal in words an IT admin acts on: the record to publish again, the DNS not answering, a domain taken. */
function refusalOf(error: AdministrationProblem, domain: string, adding: boolean): Outcome {
  const record = recordOf(error.facts);
  switch (error.code) {
    case 'domain.record_missing':
      return {
        domain,
        record,
        problem: `The TXT record proving ${domain} was not found. Publish the record below in your DNS (at your DNS host or registrar), wait until it is served (often minutes, at most as long as the zone's TTL), then verify again.`,
      };
    case 'domain.taken':
      return {
        field: 'add',
        problem: `${domain} cannot be added: ${error.detail} If it is yours, ask the person who sent you the link.`,
      };
    case 'connection.conflict':
      // The registry's words name the connection holding it, which may be another organization's.
      return {
        field: 'add',
        problem: `${domain} cannot be added: another connection routes it already, and a domain routes to one organization.`,
      };
    case 'domain.not_found':
      return { problem: `Your connection has no domain ${domain}.` };
    case 'portal.no_connection':
      return { problem: error.detail };
    default: {
      const details = error.problems.map((problem) => problem.message).filter((text) => /^[A-Z]/.test(text));
      const words = /^[a-z]/.test(error.problems[0]?.message ?? '')
        ? `${domain} ${error.problems[0]?.message}.`
        : (details[0] ?? error.detail);
      return { ...(adding ? { field: 'add' as const } : { domain }), problem: words };
    }
  }
}

function recordOf(facts: Readonly<Record<string, unknown>>): Outcome['record'] {
  const record = facts.record;
  if (typeof record !== 'object' || record === null) return undefined;
  const { name, value } = record as Record<string, unknown>;
  return typeof name === 'string' && typeof value === 'string' ? { name, value } : undefined;
}
