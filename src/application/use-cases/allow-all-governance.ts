import type { Governance, GovernanceDecision } from '../ports/governance.js';

/** The default governance: allows everything and records nothing, until an application plugs in its own. */
export class AllowAllGovernance implements Governance {
  async evaluate(): Promise<GovernanceDecision> {
    return { allowed: true };
  }
}
