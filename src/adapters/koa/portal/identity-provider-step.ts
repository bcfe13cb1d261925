import type { Context, Middleware } from 'koa';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';
import type { ConnectionView } from '../../../application/administration/connection-views.js';
import type { PortalCheckLimits } from '../../../application/portal/portal-check-limits.js';
import type { PortalSession } from '../../../application/portal/portal-sessions.js';
import type { PortalSetup } from '../../../application/portal/portal-setup.js';
import type { PreflightCheck, PreflightReport } from '../../../application/ports/connection-preflight.js';
import { singleField } from '../../single-field.js';
import { verifyAntiForgery } from '../anti-forgery.js';
import type { Endpoint } from '../endpoint.js';
import { sendJson } from '../json-answer.js';
import { readJsonBody } from '../read-json.js';
import { RoutePaths } from '../routes/route-paths.js';
import {
  FIXES,
  IDENTITY_PROVIDER_FIELDS,
  connectionKeys,
  fieldOfKey,
  fieldProblemOf,
  fieldsOf,
  fieldsOfConnection,
  isPortalProtocol,
  shownFields,
  type FieldProblem,
  type IdentityProviderField,
  type IdentityProviderFields,
  type PortalProtocol,
} from './identity-provider-form.js';
import { portalEndpoint, portalOf, readPortalForm } from './portal-guard.js';
import { sendOriginWithForms } from './provider-step.js';
import { portalEntityId } from './service-provider-values.js';
import { vendorGuide } from './vendor-guides.js';

export interface IdentityProviderStepDeps {
  setup: PortalSetup;
  /** The administration API's pre-flight, reporting each check: the same checks a save runs. */
  preflight: PreflightReport;
  limits: PortalCheckLimits;
  /** `Hosting:PublicOrigin` (empty: the request's own): where the forms must come from. */
  publicOrigin: string;
}

/** A metadata document (at most 128 KiB) URL-encoded is at most three times longer, with the other fields. */
const FORM_LIMIT_BYTES = 512 * 1024;

/** One line of the checks list, as the page and the check endpoint show it. */
interface ShownCheck {
  field: IdentityProviderField | '';
  outcome: 'passed' | 'failed' | 'not-checked';
  text: string;
  fix?: string;
}

/**
 * Step 3, "What it gave you" (`/setup/portal/identity-provider`): the identity provider's
 * details (SAML: its metadata URL or file, and optionally its entity ID; OpenID Connect:
 * its issuer, client ID and secret) and, for a connection not made yet, its first domain.
 * Saving writes the portal session's own connection through PortalSetup (the
 * administration API's rules and pre-flight); each refusal is shown next to its field
 * with what to do, and nothing is stored. `/check` runs the pre-flight alone on the same
 * fields, storing nothing, for the page's live checks (public/portal-checks.js) or, without
 * script, the form's "Check" button. A secret is never shown again, in any answer.
 */
export function identityProviderRoutes(deps: IdentityProviderStepDeps, guard: Middleware): Endpoint[] {
  const origin = (ctx: Context) => deps.publicOrigin || `${ctx.protocol}://${ctx.host}`;
  const render = async (
    ctx: Context,
    current: ConnectionView | undefined,
    fields: IdentityProviderFields,
    found: { problems?: FieldProblem[]; checks?: ShownCheck[]; draft?: Readonly<Record<string, unknown>> } = {},
  ) => {
    const { session } = portalOf(ctx);
    sendOriginWithForms(ctx);
    const problems = found.problems ?? [];
    await ctx.render('portal/identity-provider', {
      session,
      csrfToken: session.csrf,
      vendor: vendorGuide(session.vendor)?.name,
      fields: shownFields(fields),
      isNew: current === undefined,
      activated: current !== undefined && current.keys.Activated !== false,
      draft: found.draft !== undefined,
      secretStored: current?.keys.Protocol === 'OpenIdConnect' && current.secretsSet.includes('ClientSecret'),
      problems: problemsByField(problems),
      general: problems.filter((problem) => problem.field === '').map((problem) => problem.text),
      fixes: FIXES,
      checks: found.checks,
      entityId: current?.keys.EntityId ?? portalEntityId(origin(ctx), session.connection),
    });
  };
  return [
    portalEndpoint('GET', RoutePaths.portalIdentityProvider, guard, async (ctx) => {
      const { session } = portalOf(ctx);
      const current = await ownConnection(deps.setup, session);
      // A change of the activated connection waiting for its test shows as it was saved.
      const draft = current ? await deps.setup.draftOf(session) : undefined;
      await render(ctx, current, fieldsOfConnection(draft ?? current?.keys, chosenProtocol(session)), { draft });
    }),
    portalEndpoint('POST', RoutePaths.portalIdentityProvider, guard, async (ctx) => {
      const form = await readPortalForm(ctx, deps.publicOrigin, FORM_LIMIT_BYTES);
      const { session } = portalOf(ctx);
      const fields = fieldsOf((name) => singleField(form, name));
      const current = await ownConnection(deps.setup, session);
      const allowance = await deps.limits.count(session);
      if (!allowance.allowed) {
        tooMany(ctx, allowance.retryAfterMs);
        await render(ctx, current, fields, { problems: [{ field: '', text: TOO_MANY }] });
        return;
      }
      const { keys, problems } = connectionKeys(fields, current, portalEntityId(origin(ctx), session.connection));
      if (problems.length === 0) await nameGivenEntity(keys, problems);
      if (problems.length > 0) {
        ctx.status = 422;
        await render(ctx, current, fields, { problems });
        return;
      }
      try {
        await deps.setup.saveIdentityProvider(session, keys);
      } catch (error) {
        if (!(error instanceof AdministrationProblem)) throw error;
        ctx.status = statusOf(error);
        await render(ctx, current, fields, { problems: problemsOf(error) });
        return;
      }
      // A change of the activated connection waits as a draft: its test sign-in comes next.
      ctx.status = 303;
      ctx.redirect(current && current.keys.Activated !== false ? RoutePaths.portalTest : RoutePaths.portalDomains);
    }),
    portalEndpoint('POST', RoutePaths.portalIdentityProviderCheck, guard, async (ctx) => {
      const { session } = portalOf(ctx);
      const fields = await readCheckFields(ctx, deps.publicOrigin, session);
      const wantsJson = ctx.is('application/json') === 'application/json' || ctx.accepts('html', 'json') === 'json';
      const current = await ownConnection(deps.setup, session);
      const allowance = await deps.limits.count(session);
      if (!allowance.allowed) {
        tooMany(ctx, allowance.retryAfterMs);
        if (wantsJson) sendJson(ctx, { checks: [], problem: TOO_MANY });
        else await render(ctx, current, fields, { problems: [{ field: '', text: TOO_MANY }] });
        return;
      }
      const checks = await checksOf(deps.preflight, fields, current, portalEntityId(origin(ctx), session.connection));
      if (wantsJson) sendJson(ctx, { checks });
      else await render(ctx, current, fields, { checks });
    }),
  ];
}

/**
 * The pre-flight of the fields as they are, stored nowhere: what is missing first, then
 * each check the identity provider passed or failed. The client secret is not sent to the
 * pre-flight, which has no use for it: nothing here can echo it.
 */
async function checksOf(
  preflight: PreflightReport,
  fields: IdentityProviderFields,
  current: ConnectionView | undefined,
  entityId: string,
): Promise<ShownCheck[]> {
  const { protocol, keys, problems } = connectionKeys({ ...fields, ClientSecret: '' }, current, entityId);
  // What only a save needs (the client, the first domain) is not the identity provider's to check.
  const missing = problems.filter((problem) => !SAVE_ONLY.has(problem.field));
  if (!protocol || missing.length > 0) {
    return missing.map((problem) => ({ ...problem, outcome: 'failed', ...fixOf(problem.field) }));
  }
  delete keys.ClientSecret;
  const found = (await preflight.report(protocol, keys)).map((check: PreflightCheck): ShownCheck => {
    const field = fieldOfKey(check.key);
    return { field, outcome: check.outcome, text: check.text, ...(check.outcome === 'failed' ? fixOf(field) : {}) };
  });
  return protocol === 'OpenIdConnect'
    ? [
        ...found,
        {
          field: 'ClientSecret',
          outcome: 'not-checked',
          text: 'The client ID and secret are not checked here: your identity provider checks them at the test sign-in.',
        },
      ]
    : found;
}

/** The fields of a check: a form (the page without script) or JSON (its script), with the portal's anti-forgery token. */
async function readCheckFields(
  ctx: Context,
  publicOrigin: string,
  session: PortalSession,
): Promise<IdentityProviderFields> {
  if (ctx.is('application/json')) {
    const body = await readJsonBody(ctx, FORM_LIMIT_BYTES);
    const fields: Record<string, unknown> =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.fromEntries(Object.entries(body)) : {};
    const token = typeof fields._csrf === 'string' ? fields._csrf : ctx.get('x-csrf-token') || undefined;
    verifyAntiForgery(ctx, publicOrigin || `${ctx.protocol}://${ctx.host}`, session.csrf, token);
    return fieldsOf((name) => fields[name]);
  }
  const form = await readPortalForm(ctx, publicOrigin, FORM_LIMIT_BYTES);
  return fieldsOf((name) => singleField(form, name));
}

/**
 * A metadata file names the identity provider it describes; a connection given one is bound
 * to it by `IdpEntityId`, which the admin may leave empty: it is then taken from the file.
 * An aggregate names several, and the admin must say which.
 */
async function nameGivenEntity(keys: Record<string, unknown>, problems: FieldProblem[]): Promise<void> {
  if (typeof keys.IdpMetadata !== 'string' || keys.IdpEntityId !== '') return;
  // Loaded when first needed, as the SAML adapter is: the XML parser is no cost of a start.
  const { singleEntityIdOf } = await import('../../saml/metadata-entity-id.js');
  const entityId = singleEntityIdOf(keys.IdpMetadata);
  if (entityId !== undefined) keys.IdpEntityId = entityId;
  else {
    problems.push({
      field: 'IdpEntityId',
      text: "The metadata file does not describe one identity provider: give your identity provider's entity ID.",
    });
  }
}

/** The portal's connection, when saved and its organization's. */
async function ownConnection(setup: PortalSetup, session: PortalSession): Promise<ConnectionView | undefined> {
  return (await setup.state(session, undefined)).connection;
}

/** The protocol chosen at the first step, SAML when none was. */
function chosenProtocol(session: PortalSession): PortalProtocol {
  return session.protocol !== undefined && isPortalProtocol(session.protocol) ? session.protocol : 'Saml2';
}

function problemsOf(error: AdministrationProblem): FieldProblem[] {
  // Its sentence says whose the domain is (this organization's, or another's that proved it).
  if (error.code === 'domain.taken') return [{ field: 'Domain', text: error.detail }];
  const conflict = error.code === 'connection.conflict';
  const problems = error.problems.map((problem) => fieldProblemOf(problem, conflict));
  // A refusal that names no key (the catalog out of reach, a version moved) is said as a whole.
  return problems.length > 0 ? problems : [{ field: '', text: error.detail }];
}

function problemsByField(problems: readonly FieldProblem[]): Partial<Record<IdentityProviderField, string[]>> {
  const byField: Partial<Record<IdentityProviderField, string[]>> = {};
  for (const name of IDENTITY_PROVIDER_FIELDS) {
    const texts = problems.filter((problem) => problem.field === name).map((problem) => problem.text);
    if (texts.length > 0) byField[name] = texts;
  }
  return byField;
}

/** Fields a save needs that the pre-flight does not look at. */
const SAVE_ONLY: ReadonlySet<string> = new Set(['ClientId', 'ClientSecret', 'Domain']);

const fixOf = (field: IdentityProviderField | '') => (field === '' ? {} : { fix: FIXES[field] });

export function statusOf(error: AdministrationProblem): number {
  return { invalid: 422, conflict: 409, 'not-found': 404, unavailable: 503 }[error.kind];
}

const TOO_MANY =
  'Too many checks in a short time: each one makes this server fetch from your identity provider. Wait a few minutes, then try again.';

function tooMany(ctx: Context, retryAfterMs: number): void {
  ctx.status = 429;
  ctx.set('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
}
