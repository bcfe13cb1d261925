import type { Context } from 'koa';
import { ScimError } from '../../../domain/directory/scim-error.js';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from '../../../domain/directory/scim-schemas.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { sendScim } from './scim-answer.js';
import { listResponse, scimEndpoints, type ScimRouteDeps } from './scim-endpoints.js';
import { MAX_PAGE_SIZE, scimBaseUrl } from './scim-request.js';
import { schemaDefinitions } from './scim-schema-definitions.js';

/**
 * What a directory reads to learn the service (RFC 7644 4): ServiceProviderConfig (PATCH,
 * filters and ETags supported; bulk, sort and password changes not), the two resource
 * types, and the schemas with their attributes. Behind the same token as the resources.
 */
export function scimDiscoveryRoutes(
  deps: Pick<ScimRouteDeps, 'guard' | 'telemetry' | 'publicOrigin' | 'maxBodyBytes'>,
): Endpoint[] {
  const endpoint = scimEndpoints(deps, 'Meta');
  const base = (ctx: Context, organization: string) => scimBaseUrl(ctx, deps.publicOrigin, organization);
  const resourceTypes = (ctx: Context, organization: string) => [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base(ctx, organization)}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base(ctx, organization)}/ResourceTypes/Group` },
    },
  ];
  // RFC 7643 8.7.1 shows schemas without `schemas`; Entra ID's tutorial expects each to name
  // the Schema URN, as resource types name theirs.
  const schemas = (ctx: Context, organization: string) =>
    schemaDefinitions().map((schema) => ({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
      ...schema,
      meta: { resourceType: 'Schema', location: `${base(ctx, organization)}/Schemas/${schema.id}` },
    }));
  const one = <T extends { id: string }>(items: T[], id: unknown, what: string): T => {
    const found = items.find((item) => item.id === id);
    if (!found) throw new ScimError(404, `No ${what} has that id.`);
    return found;
  };
  return [
    endpoint('GET', RoutePaths.scimServiceProviderConfig, 'get', async (ctx, organization) => {
      sendScim(ctx, 200, {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
        documentationUri: 'https://datatracker.ietf.org/doc/html/rfc7644',
        patch: { supported: true },
        bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
        filter: { supported: true, maxResults: MAX_PAGE_SIZE },
        changePassword: { supported: false },
        sort: { supported: false },
        etag: { supported: true },
        authenticationSchemes: [
          {
            type: 'oauthbearertoken',
            name: 'Bearer token',
            description: "A token of this organization, made through Gatehouse's administration API.",
            primary: true,
          },
        ],
        meta: { resourceType: 'ServiceProviderConfig', location: `${base(ctx, organization)}/ServiceProviderConfig` },
      });
    }),
    endpoint('GET', RoutePaths.scimResourceTypes, 'list', async (ctx, organization) => {
      const types = resourceTypes(ctx, organization);
      sendScim(ctx, 200, listResponse(types.length, 1, types));
    }),
    endpoint('GET', RoutePaths.scimResourceType, 'get', async (ctx, organization) => {
      sendScim(ctx, 200, one(resourceTypes(ctx, organization), ctx.params.id, 'resource type'));
    }),
    endpoint('GET', RoutePaths.scimSchemas, 'list', async (ctx, organization) => {
      const all = schemas(ctx, organization);
      sendScim(ctx, 200, listResponse(all.length, 1, all));
    }),
    endpoint('GET', RoutePaths.scimSchema, 'get', async (ctx, organization) => {
      sendScim(ctx, 200, one(schemas(ctx, organization), ctx.params.id, 'schema'));
    }),
  ];
}
