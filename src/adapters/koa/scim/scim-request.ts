import type { Context } from 'koa';
import { ScimError } from '../../../domain/directory/scim-error.js';
import { readBody } from '../read-body.js';
import { GatehouseError } from '../../../domain/errors.js';

/** The most resources one page holds (ServiceProviderConfig says so as `filter.maxResults`). */
export const MAX_PAGE_SIZE = 1_000;
/** A page's size when the directory names none. */
const DEFAULT_PAGE_SIZE = 100;

/**
 * Reads a SCIM body of at most `limitBytes`: refused (413) before parsing when larger,
 * `application/scim+json` or `application/json`, and JSON whose text is never quoted back.
 */
export async function readScimBody(ctx: Context, limitBytes: number): Promise<unknown> {
  if (!ctx.is('application/scim+json', 'application/json')) {
    throw new ScimError('invalidSyntax', 'Send the body as application/scim+json (or application/json).');
  }
  const tooLarge = () =>
    new GatehouseError('request.too_large', `The body is larger than ${limitBytes} bytes.`, { safe: true });
  const body = await readBody(ctx, limitBytes, tooLarge);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ScimError('invalidSyntax', 'The body is not valid JSON.');
  }
}

/** `startIndex` (1-based; less than 1 is 1) and `count` (0 to MAX_PAGE_SIZE; more is MAX_PAGE_SIZE), as RFC 7644 3.4.2.4 reads them. */
export function pageOf(ctx: Context): { startIndex: number; count: number } {
  const number = (name: string, fallback: number) => {
    const raw = ctx.query[name];
    if (raw === undefined) return fallback;
    const text = Array.isArray(raw) ? raw[0] : raw;
    const value = Number(text);
    if (text === undefined || text.trim() === '' || !Number.isInteger(value)) {
      throw new ScimError('invalidValue', `${name} must be a whole number.`);
    }
    return value;
  };
  const startIndex = Math.max(1, number('startIndex', 1));
  const count = Math.min(MAX_PAGE_SIZE, Math.max(0, number('count', DEFAULT_PAGE_SIZE)));
  return { startIndex, count };
}

/** One query parameter as text (the first, when repeated); undefined when absent. */
export function queryText(ctx: Context, name: string): string | undefined {
  const raw = ctx.query[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/**
 * The version `If-Match` asks for: undefined without the header or with `*`; a version
 * from `W/"3"` or `"3"`; an ETag of no version of ours can never match (412).
 */
export function expectedVersion(ctx: Context): number | undefined {
  const header = ctx.get('if-match').trim();
  if (header === '' || header === '*') return undefined;
  const match = /^(?:W\/)?"(\d{1,15})"$/.exec(header);
  return match?.[1] === undefined ? -1 : Number(match[1]);
}

/** The weak ETag of a version (RFC 7644 3.14): also `meta.version`. */
export function etagOf(version: number): string {
  return `W/"${version}"`;
}

/** The resource's id from the path: ours are UUIDs, so anything else is no resource here. */
export function resourceIdOf(ctx: Context): string | undefined {
  const id = String(ctx.params.id ?? '');
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id.toLowerCase() : undefined;
}

/** The base URL of the organization's SCIM service: `Hosting:PublicOrigin` (else the request's) and the path. */
export function scimBaseUrl(ctx: Context, publicOrigin: string, organization: string): string {
  const origin = publicOrigin || `${ctx.protocol}://${ctx.host}`;
  return `${origin}/scim/v2/${encodeURIComponent(organization)}`;
}

export function notFound(resource: 'User' | 'Group'): ScimError {
  return new ScimError(404, `No ${resource} of this organization has that id.`);
}

export function preconditionFailed(): ScimError {
  return new ScimError(412, 'The resource has changed since the version If-Match names: read it again.');
}
