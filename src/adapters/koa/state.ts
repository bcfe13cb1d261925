import type { Principal } from '../../domain/claims/principal.js';

/**
 * What Gatehouse keeps on `ctx.state` for the rest of a request, typed once here for every
 * middleware, route and view.
 */
declare module 'koa' {
  interface DefaultState {
    /** Set by the request log: ties every line of a request together and is shown on error pages. */
    requestId?: string;
    /** The signed-in user; absent for an anonymous request (there is no anonymous principal). */
    principal?: Principal;
    /** The sign-in's anti-forgery token, for the forms of its pages. */
    csrfToken?: string;
    /** What pages call the signed-in user. */
    user?: { name: string };
    /** The route template of a path no router entry declares (a provider's callback or logout path), for telemetry. */
    route?: string;
    /** The request's recorded trace (telemetry on, the request sampled): its id and the server span's. */
    trace?: { traceId: string; spanId: string };
  }
}
