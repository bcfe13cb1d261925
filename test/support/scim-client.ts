/** RFC 7644 3.1: SCIM's media type, which the directories send and accept. */
export const SCIM_TYPE = 'application/scim+json';

/** One SCIM request, JSON in and out: a path under the base URL (`/Users?filter=...`). */
export type ScimRequest = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<Response>;

/** Requests to an organization's SCIM service at `baseUrl` with the bearer `token`, as a directory sends them. */
export function scimClient(baseUrl: string, token: string): ScimRequest {
  return (method, path, body, headers = {}) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: SCIM_TYPE,
        ...(body === undefined ? {} : { 'content-type': SCIM_TYPE }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

/** A filter as a query parameter: a directory percent-encodes it (`userName%20eq%20%22...%22`). */
export function filterQuery(filter: string): string {
  return `filter=${encodeURIComponent(filter)}`;
}
