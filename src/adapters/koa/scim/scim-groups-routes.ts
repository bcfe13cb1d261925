import type { Context } from 'koa';
import type { WriteOutcome } from '../../../application/ports/directory-store.js';
import type { DirectoryGroup } from '../../../domain/directory/directory-resources.js';
import { readScimFilter } from '../../../domain/directory/scim-filter.js';
import { groupPatch, readPatch } from '../../../domain/directory/scim-patch.js';
import { groupResource, readGroup } from '../../../domain/directory/scim-resources.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { sendScim } from './scim-answer.js';
import { listResponse, scimEndpoints, type ScimRouteDeps } from './scim-endpoints.js';
import {
  etagOf,
  expectedVersion,
  notFound,
  pageOf,
  preconditionFailed,
  queryText,
  readScimBody,
  resourceIdOf,
  scimBaseUrl,
} from './scim-request.js';
import { projected, refusalOf } from './scim-users-routes.js';

/**
 * `/scim/v2/{organization}/Groups`: create, read, list, replace, PATCH (members added and
 * removed in batches of thousands) and delete. A group's members are read only when the
 * answer shows them: Entra ID asks with `excludedAttributes=members`, and a group of
 * 100,000 people is not loaded to say that it changed.
 */
export function scimGroupsRoutes(deps: ScimRouteDeps): Endpoint[] {
  const endpoint = scimEndpoints(deps, 'Group');
  const location = (ctx: Context, organization: string, id: string) =>
    `${scimBaseUrl(ctx, deps.publicOrigin, organization)}/Groups/${id}`;
  const membersShown = (ctx: Context) => {
    const excluded = (queryText(ctx, 'excludedAttributes') ?? '')
      .toLowerCase()
      .split(',')
      .map((s) => s.trim());
    const asked = queryText(ctx, 'attributes');
    if (excluded.includes('members')) return false;
    return (
      asked === undefined ||
      asked
        .toLowerCase()
        .split(',')
        .some((name) => name.trim().startsWith('members'))
    );
  };
  const representation = async (ctx: Context, group: DirectoryGroup) => {
    const members = membersShown(ctx) ? await deps.store.membersOf(group.organization, group.id) : undefined;
    return projected(ctx, groupResource(group, members, location(ctx, group.organization, group.id)));
  };
  const answer = async (ctx: Context, status: number, group: DirectoryGroup) => {
    ctx.set('etag', etagOf(group.version));
    ctx.set('location', location(ctx, group.organization, group.id));
    sendScim(ctx, status, await representation(ctx, group));
  };
  const written = async (ctx: Context, outcome: WriteOutcome<DirectoryGroup>, status = 200) => {
    if (outcome.kind !== 'written') throw refusalOf(outcome);
    await answer(ctx, status, outcome.resource);
  };

  return [
    endpoint('POST', RoutePaths.scimGroups, 'create', async (ctx, organization) => {
      const { attributes, members } = readGroup(await readScimBody(ctx, deps.maxBodyBytes));
      await written(ctx, await deps.provision.createGroup(organization, attributes, members), 201);
    }),
    endpoint('GET', RoutePaths.scimGroups, 'list', async (ctx, organization) => {
      const text = queryText(ctx, 'filter');
      const filter = text === undefined ? undefined : readScimFilter(text, 'Group');
      const page = pageOf(ctx);
      const found = await deps.store.findGroups(organization, { ...page, ...(filter ? { filter } : {}) });
      const resources = [];
      for (const group of found.resources) resources.push(await representation(ctx, group));
      sendScim(ctx, 200, listResponse(found.total, page.startIndex, resources));
    }),
    endpoint('GET', RoutePaths.scimGroup, 'get', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      const group = id === undefined ? undefined : await deps.store.getGroup(organization, id);
      if (!group) throw notFound('Group');
      await answer(ctx, 200, group);
    }),
    endpoint('PUT', RoutePaths.scimGroup, 'replace', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      const { attributes, members } = readGroup(await readScimBody(ctx, deps.maxBodyBytes));
      if (id === undefined) throw notFound('Group');
      await written(
        ctx,
        await deps.provision.replaceGroup(organization, id, attributes, members, expectedVersion(ctx)),
      );
    }),
    endpoint('PATCH', RoutePaths.scimGroup, 'patch', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      const patch = groupPatch(readPatch(await readScimBody(ctx, deps.maxBodyBytes)));
      if (id === undefined) throw notFound('Group');
      const outcome = await deps.provision.patchGroup(organization, id, patch, expectedVersion(ctx));
      // RFC 7644 3.5.2 lets a PATCH answer 204: Entra ID and Okta read nothing back, and a
      // group of 100,000 members is not loaded to say that ten joined.
      if (outcome.kind !== 'written') throw refusalOf(outcome);
      ctx.set('etag', etagOf(outcome.resource.version));
      ctx.status = 204;
    }),
    endpoint('DELETE', RoutePaths.scimGroup, 'delete', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      if (id === undefined) throw notFound('Group');
      const outcome = await deps.provision.deleteGroup(organization, id, expectedVersion(ctx));
      if (outcome.kind === 'missing') throw notFound('Group');
      if (outcome.kind === 'stale') throw preconditionFailed();
      ctx.status = 204;
    }),
  ];
}
