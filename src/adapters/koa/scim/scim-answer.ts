import type { Context } from 'koa';
import { isCatalogUnavailable } from '../../../application/ports/connection-catalog.js';
import { SCIM_ERROR_SCHEMA, ScimError } from '../../../domain/directory/scim-error.js';
import { isGatehouseError } from '../../../domain/errors.js';

/** RFC 7644 3.1: SCIM's own media type; clients send and accept `application/json` too. */
export const SCIM_JSON_TYPE = 'application/scim+json; charset=utf-8';

export function sendScim(ctx: Context, status: number, value: unknown): void {
  ctx.status = status;
  ctx.set('content-type', SCIM_JSON_TYPE);
  ctx.set('cache-control', 'no-store');
  ctx.body = JSON.stringify(value);
}

/** A SCIM error response (RFC 7644 3.12) of any status, `scimType` only where the RFC names one. */
export function sendScimError(ctx: Context, status: number, detail: string, scimType?: string): void {
  sendScim(ctx, status, {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(status),
    ...(scimType === undefined ? {} : { scimType }),
    detail,
  });
}

/** The body-reading refusals of read-body.ts and read-json.ts, as SCIM says them. */
const REQUEST_REFUSALS: Readonly<Record<string, { status: number; scimType?: string }>> = {
  'request.too_large': { status: 413 },
  'request.invalid_json': { status: 400, scimType: 'invalidSyntax' },
  'request.unsupported_type': { status: 400, scimType: 'invalidSyntax' },
};

/**
 * Runs a SCIM handler: a ScimError becomes its SCIM error response, a store out of reach
 * 503 with Retry-After (the directory tries again), the organization's share of slow
 * searches spent 429 with Retry-After, a body refused while read its SCIM status; anything else goes on to the error handler (500, no detail).
 */
export async function scimAnswering(ctx: Context, handler: () => Promise<void>): Promise<void> {
  try {
    await handler();
  } catch (error) {
    if (error instanceof ScimError) {
      sendScim(ctx, error.status, error.body());
      return;
    }
    if (isCatalogUnavailable(error)) {
      ctx.set('retry-after', '5');
      sendScimError(ctx, 503, 'The directory store cannot be reached; try again shortly.');
      return;
    }
    if (isGatehouseError(error) && error.code === 'directory.busy') {
      ctx.set('retry-after', String(Math.max(1, Math.ceil((error.retryAfterMs ?? 1_000) / 1000))));
      sendScimError(ctx, 429, error.message);
      return;
    }
    const refusal = isGatehouseError(error) ? REQUEST_REFUSALS[error.code] : undefined;
    if (refusal && isGatehouseError(error)) {
      sendScimError(ctx, refusal.status, error.message, refusal.scimType);
      return;
    }
    throw error;
  }
}
