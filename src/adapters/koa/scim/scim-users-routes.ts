import type { Context } from 'koa';
import type { WriteOutcome } from '../../../application/ports/directory-store.js';
import type { DirectoryUser } from '../../../domain/directory/directory-resources.js';
import { ScimError } from '../../../domain/directory/scim-error.js';
import { readScimFilter } from '../../../domain/directory/scim-filter.js';
import { applyUserPatch, readPatch } from '../../../domain/directory/scim-patch.js';
import { projectAttributes, readUser, userResource } from '../../../domain/directory/scim-resources.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { sendScim } from './scim-answer.js';
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
import { listResponse, scimEndpoints, type ScimRouteDeps } from './scim-endpoints.js';

/**
 * `/scim/v2/{organization}/Users`: create, read, list with a filter and paging, replace,
 * PATCH and delete (RFC 7644 3.3-3.6), each answering the resource with its ETag. A
 * deactivation (active: false, by PUT or PATCH) or a delete signs the person out
 * everywhere before the answer (ProvisionDirectory).
 */
export function scimUsersRoutes(deps: ScimRouteDeps): Endpoint[] {
  const endpoint = scimEndpoints(deps, 'User');
  const location = (ctx: Context, organization: string, id: string) =>
    `${scimBaseUrl(ctx, deps.publicOrigin, organization)}/Users/${id}`;
  const answer = (ctx: Context, status: number, user: DirectoryUser) => {
    ctx.set('etag', etagOf(user.version));
    ctx.set('location', location(ctx, user.organization, user.id));
    sendScim(ctx, status, projected(ctx, userResource(user, location(ctx, user.organization, user.id))));
  };
  const written = (ctx: Context, outcome: WriteOutcome<DirectoryUser>, status = 200): void => {
    if (outcome.kind === 'written') return answer(ctx, status, outcome.resource);
    throw refusalOf(outcome);
  };

  return [
    endpoint('POST', RoutePaths.scimUsers, 'create', async (ctx, organization) => {
      const attributes = readUser(await readScimBody(ctx, deps.maxBodyBytes));
      written(ctx, await deps.provision.createUser(organization, attributes), 201);
    }),
    endpoint('GET', RoutePaths.scimUsers, 'list', async (ctx, organization) => {
      const text = queryText(ctx, 'filter');
      const filter = text === undefined ? undefined : readScimFilter(text, 'User');
      const page = pageOf(ctx);
      const found = await deps.store.findUsers(organization, { ...page, ...(filter ? { filter } : {}) });
      const resources = found.resources.map((user) =>
        projected(ctx, userResource(user, location(ctx, organization, user.id))),
      );
      sendScim(ctx, 200, listResponse(found.total, page.startIndex, resources));
    }),
    endpoint('GET', RoutePaths.scimUser, 'get', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      const user = id === undefined ? undefined : await deps.store.getUser(organization, id);
      if (!user) throw notFound('User');
      answer(ctx, 200, user);
    }),
    endpoint('PUT', RoutePaths.scimUser, 'replace', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      const attributes = readUser(await readScimBody(ctx, deps.maxBodyBytes));
      if (id === undefined) throw notFound('User');
      written(ctx, await deps.provision.replaceUser(organization, id, attributes, expectedVersion(ctx)));
    }),
    endpoint('PATCH', RoutePaths.scimUser, 'patch', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      const operations = readPatch(await readScimBody(ctx, deps.maxBodyBytes));
      if (id === undefined) throw notFound('User');
      const outcome = await deps.provision.patchUser(
        organization,
        id,
        (current) => applyUserPatch(current, operations),
        expectedVersion(ctx),
      );
      written(ctx, outcome);
    }),
    endpoint('DELETE', RoutePaths.scimUser, 'delete', async (ctx, organization) => {
      const id = resourceIdOf(ctx);
      if (id === undefined) throw notFound('User');
      const outcome = await deps.provision.deleteUser(organization, id, expectedVersion(ctx));
      if (outcome.kind === 'missing') throw notFound('User');
      if (outcome.kind === 'stale') throw preconditionFailed();
      ctx.status = 204;
    }),
  ];
}

/** What a refused write answers (RFC 7644: 409 uniqueness, 412 for If-Match, 404). */
export function refusalOf(outcome: Exclude<WriteOutcome<unknown>, { kind: 'written' }>): ScimError {
  switch (outcome.kind) {
    case 'missing':
      return new ScimError(404, 'No resource of this organization has that id.');
    case 'stale':
      return preconditionFailed();
    case 'taken':
      return new ScimError(
        'uniqueness',
        `Another ${outcome.attribute === 'userName' ? 'user' : 'group'} of this organization has that ${outcome.attribute}.`,
      );
    case 'unknown_members':
      return new ScimError('invalidValue', `${outcome.ids.length} member(s) are no user of this organization.`);
  }
}

/** The resource with only the attributes asked for (`attributes`, `excludedAttributes`). */
function projected(ctx: Context, resource: Record<string, unknown>): Record<string, unknown> {
  const attributes = queryText(ctx, 'attributes');
  const excludedAttributes = queryText(ctx, 'excludedAttributes');
  if (attributes === undefined && excludedAttributes === undefined) return resource;
  return projectAttributes(resource, {
    ...(attributes === undefined ? {} : { attributes }),
    ...(excludedAttributes === undefined ? {} : { excludedAttributes }),
  });
}

export { projected };
