import type { Middleware } from 'koa';
import type { EndpointMetadata } from '../../domain/authorization/endpoint-metadata.js';

/**
 * One routed endpoint: every route of the application is declared as one of these, in
 * one table, so that the inventory (method, path, access) can be enumerated at run time.
 */
export interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** @koa/router 15 pattern: `/Home/Error{/:statusCode}`. */
  path: string;
  /** Authorization metadata; `undefined` means none, so the fallback policy applies. */
  metadata?: EndpointMetadata;
  /** Probes run before static files, session and body parsing: no store access, no cookie. */
  beforeSession?: boolean;
  /**
   * Credentials other than the session, checked before the authorization check: the
   * administration API's keys (a key's caller becomes the request's principal).
   */
  authenticate?: Middleware;
  handler: Middleware;
}

/** The documented spelling of a route pattern: `/Home/Error{/:statusCode}` -> `/Home/Error/{statusCode?}`. */
export function routeTemplate(path: string): string {
  return path.replace(/\{\/:(\w+)\}/g, '/{$1?}').replace(/:(\w+)/g, '{$1}');
}
