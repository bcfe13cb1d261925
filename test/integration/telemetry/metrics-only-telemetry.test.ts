import { expect } from 'chai';
import { asyncContextUsesHooks, nodeFlags } from '../../../src/bootstrap/async-context-cost.js';
import { plainClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { telemetryReaders, total } from '../../support/telemetry-readers.js';

/** `Traces: false`: the request durations and counters still move; no span is opened and no line names one. */
describe('Telemetry: metrics alone, and the note on what traces cost', function () {
  this.timeout(20_000);
  let running: RunningGatehouse;
  let readers: ReturnType<typeof telemetryReaders>;

  beforeEach(async () => {
    readers = telemetryReaders();
    running = await startGatehouse(
      { ProjectTemplate__Telemetry__Enabled: 'true', ProjectTemplate__Telemetry__Traces: 'false' },
      { telemetry: readers.parts },
    );
  });
  afterEach(() => running.close());

  it('times each request by its route and counts its authorization, with no span and no trace ids in the log', async () => {
    const { cookie } = await signIn(running.gatehouse, plainClaims);
    const answer = await fetch(`${running.url}/api/app-info`, { headers: { cookie } });
    expect(answer.status).to.equal(200);
    await fetch(`${running.url}/no-such-page`);

    const points = await readers.points();
    expect(total(points, 'http.server.request.duration', { 'http.route': '/api/app-info' })).to.equal(1);
    const unrouted = points.filter(
      (p) => p.metric === 'http.server.request.duration' && p.attributes['http.response.status_code'] === 404,
    );
    expect(unrouted, 'a request no route matched').to.have.length(1);
    expect(unrouted[0]?.attributes).to.not.have.property('http.route');
    expect(total(points, 'gatehouse.authorization.attempts', { result: 'allowed' })).to.be.greaterThan(0);
    expect(readers.spans()).to.deep.equal([]);
    expect(running.logs.filter((line) => line.includes('trace_id'))).to.deep.equal([]);
    expect(running.logs.filter((line) => line.includes(HOOKS_NOTE))).to.deep.equal([]);
  });

  it("says at start, with traces on, when this Node's async context costs every await", async () => {
    const traced = await startGatehouse({ ProjectTemplate__Telemetry__Enabled: 'true' });
    try {
      const expected = asyncContextUsesHooks(process.version, nodeFlags(process.execArgv, process.env.NODE_OPTIONS));
      expect(traced.logs.filter((line) => line.includes(HOOKS_NOTE))).to.have.length(expected ? 1 : 0);
    } finally {
      await traced.close();
    }
  });
});

const HOOKS_NOTE = 'keeps their context with async hooks';
