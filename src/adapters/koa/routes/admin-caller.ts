import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { AdministrationLimits } from '../../../application/administration/administration-limits.js';
import { ClaimTypes } from '../../../domain/claims/claim-types.js';
import type { Principal } from '../../../domain/claims/principal.js';
import { subjectOf } from '../../../domain/claims/principal.js';
import { verifyAntiForgery } from '../anti-forgery.js';
import type { ApiKeys } from '../api-keys.js';
import { sendProblem } from '../problem-details.js';

/** Who called the administration API, for the audit trail: `api-key:<id>` or `staff:<hash of the subject>`. */
const callers = new WeakMap<Context, string>();

export function adminActorOf(ctx: Context): string {
  return callers.get(ctx) ?? 'unknown';
}

export interface AdminCallerOptions {
  apiKeys: ApiKeys;
  limits: AdministrationLimits;
  /** `Authorization:PermissionClaimType` and `Administration:ManagePermission`: what a key's caller holds. */
  permissionClaimType: string;
  permission: string;
  /** `Hosting:PublicOrigin` (empty: the request's own): where a cookie caller's unsafe request must come from. */
  publicOrigin: string;
}

/**
 * The administration API's callers, before its authorization check:
 * - every request counts against its client's limit (429 past it);
 * - `Authorization: Bearer <key>`: a key of `Administration:ApiKeys` makes the request's
 *   principal a provisioning job holding the manage permission, for this request only
 *   (nothing is stored, no cookie is set); any other key, or another scheme, is a 401 at
 *   once, never a fall back to the session;
 * - without it, the signed-in staff member's session, whose unsafe requests (PUT, PATCH,
 *   POST, DELETE) must carry the session's anti-forgery token in `X-CSRF-Token` and come
 *   from this site: a cookie rides along with a request another site makes the browser send.
 *   A safe request answers the token in the same header, for a script of this site to send.
 */
export function adminCaller(options: AdminCallerOptions): Middleware {
  return async function authenticateAdminCaller(ctx, next) {
    await options.limits.countRequest(ctx.ip);
    const authorization = ctx.get('authorization');
    if (authorization !== '') {
      const key = /^Bearer +([A-Za-z0-9_~+/.=-]{1,512})$/i.exec(authorization)?.[1];
      const id = key === undefined ? undefined : options.apiKeys.identify(key);
      if (id === undefined) {
        await options.limits.countRefusal(ctx.ip);
        ctx.set('www-authenticate', 'Bearer realm="administration"');
        return sendProblem(
          ctx,
          401,
          'Sign-in required',
          'The API key is not one this deployment accepts.',
          'auth.api_key_invalid',
        );
      }
      ctx.state.principal = keyPrincipal(id, options);
      callers.set(ctx, `api-key:${id}`);
      return next();
    }
    const principal = ctx.state.principal;
    // Nobody signed in and no key: the policy answers 401, which names the scheme to use (RFC 9110 15.5.2).
    if (!principal) ctx.set('www-authenticate', 'Bearer realm="administration"');
    else {
      callers.set(ctx, `staff:${subjectHash(principal)}`);
      if (ctx.method === 'GET' || ctx.method === 'HEAD') {
        if (ctx.state.csrfToken) ctx.set('x-csrf-token', ctx.state.csrfToken);
      } else {
        verifyAntiForgery(
          ctx,
          options.publicOrigin || `${ctx.protocol}://${ctx.host}`,
          ctx.state.csrfToken,
          ctx.get('x-csrf-token') || undefined,
        );
      }
    }
    return next();
  };
}

/** A provisioning job's principal: the manage permission, the deployment's (no connection), named by its key's id. */
function keyPrincipal(id: string, options: AdminCallerOptions): Principal {
  const issuer = 'ApiKey';
  return {
    scheme: issuer,
    claims: [
      { type: ClaimTypes.Subject, value: `api-key:${id}`, issuer },
      { type: options.permissionClaimType, value: options.permission, issuer },
    ],
  };
}

function subjectHash(principal: Principal): string {
  return createHash('sha256')
    .update(subjectOf(principal) ?? '', 'utf8')
    .digest('base64url');
}
