import type { Principal } from '../../domain/claims/principal.js';

/** An operation a signed-in user asks for, after it has passed endpoint authorization. */
export interface GovernanceRequest {
  principal: Principal;
  /** Stable, dotted action name: `app-info.manage.read`. */
  action: string;
  resource?: string;
}

export type GovernanceDecision = { allowed: true } | { allowed: false; reason: string };

/**
 * The application-level governance seam (docs: Governance): policy
 * decisions, acknowledgment workflows, scoped capability grants and decision audit
 * records belong to the consuming application's implementation. It complements endpoint
 * authorization and never replaces it: it is consulted only for requests that already
 * passed the endpoint's authorization check.
 */
export interface Governance {
  evaluate(request: GovernanceRequest): Promise<GovernanceDecision>;
}

export const GovernanceToken = Symbol('Governance');
