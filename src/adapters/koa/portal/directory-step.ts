import type { Context, Middleware } from 'koa';
import type { OrganizationConnections } from '../../../application/directory/directory-sessions.js';
import { MAX_TOKENS_PER_ORGANIZATION, type ScimTokens } from '../../../application/directory/scim-tokens.js';
import type { Directory } from '../../../application/ports/directory.js';
import { singleField } from '../../single-field.js';
import { auditRequest } from '../audit-request.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { scimBaseUrl } from '../scim/scim-request.js';
import { portalEndpoint, portalOf, readPortalForm } from './portal-guard.js';
import { sendOriginWithForms } from './provider-step.js';

export interface DirectoryStepDeps {
  tokens: ScimTokens;
  connections: Pick<OrganizationConnections, 'of'>;
  /** What the organization's directory has pushed so far: the step's test. */
  directory: Pick<Directory, 'users' | 'groups'>;
  /** `Hosting:PublicOrigin` (empty: the request's own): the base URL is on it, and forms must come from it. */
  publicOrigin: string;
}

/** A form of one token id: anything much larger is not this form. */
const FORM_LIMIT_BYTES = 1024;

/** What the page says after an action. */
interface Outcome {
  /** The token just made: shown in this answer only. */
  made?: { id: string; token: string };
  notice?: string;
  problem?: string;
}

/**
 * The optional step "Directory sync" (`/setup/portal/directory`), where directory sync is on:
 * the organization's SCIM base URL, its tokens (made here and shown once, listed by id and
 * when last used, revoked here), and the test: what the directory has pushed so far and when
 * it last reached Gatehouse, which moves once the IT admin's "Test connection" (Entra ID) or
 * "Test Connector Configuration" (Okta) has called with the token. Every action is on the
 * portal session's organization, audited with the actor `portal:<link id>`, like its other
 * steps. A token is made only once a connection of the organization is active, as the
 * administration API does: the directory's people are matched to that connection's sign-ins.
 */
export function directoryRoutes(deps: DirectoryStepDeps, guard: Middleware): Endpoint[] {
  const render = async (ctx: Context, outcome: Outcome = {}) => {
    const { session } = portalOf(ctx);
    const organization = session.organization;
    sendOriginWithForms(ctx);
    const [tokens, users, groups] = await Promise.all([
      deps.tokens.list(organization),
      deps.directory.users(organization, { count: 0 }),
      deps.directory.groups(organization, { count: 0 }),
    ]);
    const lastUsed = Math.max(0, ...tokens.map((token) => token.lastUsedAt ?? 0));
    await ctx.render('portal/directory', {
      session,
      csrfToken: session.csrf,
      signsIn: deps.connections.of(organization).length > 0,
      baseUrl: `${scimBaseUrl(ctx, deps.publicOrigin, organization)}/`,
      tokens: tokens.map((token) => ({
        id: token.id,
        createdAt: iso(token.createdAt),
        lastUsedAt: token.lastUsedAt === undefined ? undefined : iso(token.lastUsedAt),
      })),
      full: tokens.length >= MAX_TOKENS_PER_ORGANIZATION,
      maxTokens: MAX_TOKENS_PER_ORGANIZATION,
      pushed: { users: users.total, groups: groups.total, lastUsedAt: lastUsed > 0 ? iso(lastUsed) : undefined },
      outcome,
    });
  };
  const actor = (ctx: Context) => ({ id: `portal:${portalOf(ctx).session.linkId}`, request: auditRequest(ctx) });
  return [
    portalEndpoint('GET', RoutePaths.portalDirectory, guard, async (ctx) => render(ctx)),
    portalEndpoint('POST', RoutePaths.portalDirectoryTokens, guard, async (ctx) => {
      await readPortalForm(ctx, deps.publicOrigin, FORM_LIMIT_BYTES);
      const organization = portalOf(ctx).session.organization;
      if (deps.connections.of(organization).length === 0) {
        ctx.status = 409;
        await render(ctx, { problem: 'Activate single sign-on first: directory sync follows it.' });
        return;
      }
      const made = await deps.tokens.create(organization, actor(ctx));
      if (made.kind === 'full') {
        ctx.status = 409;
        await render(ctx, {
          problem: `You hold ${MAX_TOKENS_PER_ORGANIZATION} tokens already: revoke the one your identity provider no longer uses first.`,
        });
        return;
      }
      await render(ctx, { made: { id: made.id, token: made.token } });
    }),
    portalEndpoint('POST', RoutePaths.portalDirectoryRevoke, guard, async (ctx) => {
      const form = await readPortalForm(ctx, deps.publicOrigin, FORM_LIMIT_BYTES);
      const id = (singleField(form, 'id') ?? '').trim();
      const revoked = id !== '' && (await deps.tokens.revoke(portalOf(ctx).session.organization, id, actor(ctx)));
      if (!revoked) {
        ctx.status = 404;
        await render(ctx, { problem: 'You hold no such token: it may have been revoked already.' });
        return;
      }
      await render(ctx, {
        notice: `Token ${id} is revoked: a request carrying it is refused from now on.`,
      });
    }),
  ];
}

const iso = (at: number) => new Date(at).toISOString();
