import type { Context, Middleware } from 'koa';
import type { ProvisionDirectory } from '../../../application/directory/provision-directory.js';
import type { DirectoryStore } from '../../../application/ports/directory-store.js';
import type { Telemetry } from '../../../application/ports/telemetry.js';
import { allowAnonymous } from '../../../domain/authorization/endpoint-metadata.js';
import { ScimError } from '../../../domain/directory/scim-error.js';
import type { Endpoint } from '../endpoint.js';
import { scimAnswering } from './scim-answer.js';
import { scimCallerOf } from './scim-guard.js';

export interface ScimRouteDeps {
  store: DirectoryStore;
  provision: ProvisionDirectory;
  telemetry: Telemetry;
  /** The SCIM guard (scim-guard.ts): the bearer token of the path's organization. */
  guard: Middleware;
  /** `Hosting:PublicOrigin` (empty: the request's own): `meta.location` is on it. */
  publicOrigin: string;
  /** `Directory:MaxBodyBytes`. */
  maxBodyBytes: number;
}

export type ScimOperation = 'create' | 'get' | 'list' | 'replace' | 'patch' | 'delete';

/**
 * The maker of the SCIM endpoints: anonymous to the application's authorization (a
 * directory has no session, and no account here) and authorized by the SCIM guard instead,
 * which lets only the path's organization's token through, like the setup portal's guard.
 * Each request is counted (`gatehouse.directory.operations`: resource, operation, outcome)
 * and answered in SCIM's own error format when refused.
 */
export function scimEndpoints(deps: Pick<ScimRouteDeps, 'guard' | 'telemetry'>, resource: 'User' | 'Group' | 'Meta') {
  return (
    method: Endpoint['method'],
    path: string,
    operation: ScimOperation,
    handler: (ctx: Context, organization: string) => Promise<void>,
  ): Endpoint => ({
    method,
    path,
    metadata: allowAnonymous(),
    authenticate: deps.guard,
    handler: async (ctx) => {
      let outcome = 'success';
      try {
        await scimAnswering(ctx, async () => {
          try {
            await handler(ctx, scimCallerOf(ctx).organization);
          } catch (error) {
            outcome = error instanceof ScimError ? (error.scimType ?? String(error.status)) : 'refused';
            throw error;
          }
        });
      } finally {
        if (resource !== 'Meta') {
          deps.telemetry.count('gatehouse.directory.operations', { resource, operation, outcome });
        }
      }
    },
  });
}

/** RFC 7644 3.4.2: a page of a query. */
export function listResponse(
  total: number,
  startIndex: number,
  resources: readonly unknown[],
): Record<string, unknown> {
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
