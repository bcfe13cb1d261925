import { expect } from 'chai';
import type { Governance, GovernanceDecision, GovernanceRequest } from '../../../src/application/ports/governance.js';
import type { Gatehouse } from '../../../src/bootstrap/gatehouse.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { adminClaims, plainClaims, signIn } from '../../support/sign-in.js';

/** A governance component that records what reaches it and answers as told. */
class RecordingGovernance implements Governance {
  readonly requests: GovernanceRequest[] = [];
  decision: GovernanceDecision = { allowed: true };
  async evaluate(request: GovernanceRequest): Promise<GovernanceDecision> {
    this.requests.push(request);
    return this.decision;
  }
}

describe('governance seam', () => {
  const governance = new RecordingGovernance();
  let running: RunningGatehouse;
  let url: string;
  let gatehouse: Gatehouse;
  before(async () => {
    running = await startGatehouse({}, { governance });
    ({ url, gatehouse } = running);
  });
  after(() => running.close());
  beforeEach(() => {
    governance.requests.length = 0;
    governance.decision = { allowed: true };
  });

  it('is never reached by an anonymous or an unauthorized request', async () => {
    expect((await fetch(`${url}/api/app-info/manage`)).status).to.equal(401);
    const { cookie } = await signIn(gatehouse, plainClaims);
    expect((await fetch(`${url}/api/app-info/manage`, { headers: { cookie } })).status).to.equal(403);
    expect(governance.requests).to.deep.equal([]);
  });

  it('is consulted after endpoint authorization passed, and can still refuse', async () => {
    const { cookie } = await signIn(gatehouse, adminClaims);
    expect((await fetch(`${url}/api/app-info/manage`, { headers: { cookie } })).status).to.equal(200);
    expect(governance.requests.map((r) => r.action)).to.deep.equal(['app-info.manage.read']);
    governance.decision = { allowed: false, reason: 'The maintenance window requires an acknowledgment.' };
    const refused = await fetch(`${url}/api/app-info/manage`, { headers: { cookie } });
    expect(refused.status).to.equal(403);
    expect(await refused.json()).to.include({
      code: 'governance.denied',
      detail: 'The maintenance window requires an acknowledgment.',
    });
  });
});
