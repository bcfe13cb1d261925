import type { Governance, GovernanceDecision } from '../../application/ports/governance.js';

/** The default governance: allows everything and records nothing, until an application plugs in its own. */
export class AllowAllGovernance implements Governance {
  async evaluate(): Promise<GovernanceDecision> {
    return { allowed: true };
  }
}
