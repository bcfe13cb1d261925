import { expect } from 'chai';
import { asyncContextUsesHooks, nodeFlags } from '../../../src/bootstrap/async-context-cost.js';

describe('asyncContextUsesHooks: whether keeping the active span across awaits costs every await', () => {
  it('is so on Node 20, whatever the flags', () => {
    expect(asyncContextUsesHooks('v20.20.2', [])).to.equal(true);
    expect(asyncContextUsesHooks('v20.20.2', ['--experimental-async-context-frame'])).to.equal(true);
  });

  it('is so on Node 22 unless started with --experimental-async-context-frame (22.7 and later)', () => {
    expect(asyncContextUsesHooks('v22.23.3', [])).to.equal(true);
    expect(asyncContextUsesHooks('v22.23.3', ['--experimental-async-context-frame'])).to.equal(false);
    expect(asyncContextUsesHooks('v22.6.0', ['--experimental-async-context-frame'])).to.equal(true);
  });

  it('is not so on Node 24 unless the frame is switched off', () => {
    expect(asyncContextUsesHooks('v24.21.0', [])).to.equal(false);
    expect(asyncContextUsesHooks('v24.21.0', ['--no-async-context-frame'])).to.equal(true);
  });

  it('reads the flags of the command line and of NODE_OPTIONS', () => {
    expect(
      nodeFlags(['--enable-source-maps'], ' --experimental-async-context-frame  --max-old-space-size=512'),
    ).to.deep.equal(['--enable-source-maps', '--experimental-async-context-frame', '--max-old-space-size=512']);
    expect(nodeFlags([], undefined)).to.deep.equal([]);
  });
});
