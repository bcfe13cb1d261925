import { expect } from 'chai';
import { DataPointType, MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  COUNTER_CARDINALITY_LIMIT,
  CumulativeCounter,
  OVERFLOW_ATTRIBUTE,
} from '../../../../src/adapters/telemetry/cumulative-counter.js';
import { telemetryReaders, total } from '../../../support/telemetry-readers.js';

describe('CumulativeCounter (a request-path counter kept by Gatehouse, read by the SDK on collection)', () => {
  function counter() {
    const readers = telemetryReaders();
    const provider = new MeterProvider({ readers: [...(readers.parts.metricReaders ?? [])] });
    return { readers, counter: new CumulativeCounter(provider.getMeter('test'), 'test.attempts', 'Attempts.') };
  }

  it('exports one monotonic cumulative sum per attribute set, as the SDK counter does', async () => {
    const { readers, counter: attempts } = counter();
    attempts.add({ policy: 'Admin', result: 'denied' });
    attempts.add({ policy: 'Admin', result: 'denied' });
    attempts.add({ policy: 'Admin', result: 'allowed' });
    const metric = (await readers.raw()).scopeMetrics[0]?.metrics[0];
    expect(metric?.descriptor.name).to.equal('test.attempts');
    expect(metric?.dataPointType).to.equal(DataPointType.SUM);
    expect(metric && 'isMonotonic' in metric ? metric.isMonotonic : undefined).to.equal(true);
    const points = await readers.points();
    expect(total(points, 'test.attempts', { result: 'denied' })).to.equal(2);
    expect(total(points, 'test.attempts', { result: 'allowed' })).to.equal(1);
    expect(points).to.have.length(2);
  });

  it('keeps counting across collections (cumulative, not reset by a read)', async () => {
    const { readers, counter: attempts } = counter();
    attempts.add({ policy: 'Admin', result: 'denied' });
    expect(total(await readers.points(), 'test.attempts')).to.equal(1);
    attempts.add({ policy: 'Admin', result: 'denied' });
    expect(total(await readers.points(), 'test.attempts')).to.equal(2);
  });

  it('sums one set named in two orders, and leaves out attributes without a value', async () => {
    const { readers, counter: sign_ins } = counter();
    sign_ins.add({ provider: 'Saml2', outcome: 'failure', 'error.type': undefined });
    sign_ins.add({ outcome: 'failure', provider: 'Saml2' });
    const points = await readers.points();
    expect(points).to.have.length(1);
    expect(points[0]?.value).to.equal(2);
    expect(points[0]?.attributes).to.deep.equal({ provider: 'Saml2', outcome: 'failure' });
  });

  it('folds attribute sets past its cardinality limit into the overflow set, never growing without bound', async () => {
    const { readers, counter: attempts } = counter();
    for (let index = 0; index < COUNTER_CARDINALITY_LIMIT + 3; index++) attempts.add({ policy: `p${index}` });
    attempts.add({ policy: 'p0' });
    const points = await readers.points();
    expect(points).to.have.length(COUNTER_CARDINALITY_LIMIT);
    expect(total(points, 'test.attempts', { [OVERFLOW_ATTRIBUTE]: true })).to.equal(4);
    expect(total(points, 'test.attempts', { policy: 'p0' })).to.equal(2);
  });
});
