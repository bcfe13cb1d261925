import { expect } from 'chai';
import { checkInBackground } from '../../../../src/application/connections/background-checks.js';
import { ConnectionRegistry } from '../../../../src/application/connections/connection-registry.js';
import type { DeferredDeclaration } from '../../../../src/application/connections/deferred-declarations.js';
import type { Logger } from '../../../../src/application/ports/logger.js';
import { CONNECTION_RULES, oidcSection } from '../../../support/connection-declarations.js';

class RecordingLogger implements Logger {
  readonly lines: Array<{ fields: object; message: string }> = [];
  debug() {}
  info(fields: object, message: string) {
    this.lines.push({ fields, message });
  }
  warn() {}
  error() {}
}

function entries(count: number): DeferredDeclaration[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `org-${i}`;
    const section = oidcSection(name, [`${name}.com`]);
    const origin = `database:${name}`;
    return {
      name,
      origin,
      keys: section,
      provedDomains: [`${name}.com`],
      declare: () => ({ name, origin, section, problems: [], verifiedDomains: [`${name}.com`] }),
    };
  });
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('checkInBackground: the deferred declarations checked a slice at a time', () => {
  it('checks nothing at once, all of them over turns of the event loop, then says so once', async () => {
    const registry = new ConnectionRegistry(CONNECTION_RULES, new Set());
    registry.defer(entries(400));
    const logger = new RecordingLogger();
    checkInBackground(registry, logger, 0);
    expect(registry.deferredCount).to.equal(400);
    await turn();
    // One batch per slice of no time at all: others' work goes between them.
    expect(registry.deferredCount).to.be.above(0).and.below(400);
    expect(registry.byDomain('org-399.com')?.name).to.equal('org-399');
    while (registry.deferredCount > 0) await turn();
    await turn();
    expect(registry.size).to.equal(400);
    expect(logger.lines.map((line) => line.message)).to.deep.equal([
      'connections read from the catalog at start are checked',
    ]);
    expect(logger.lines[0]?.fields).to.include({ connections: 400, refused: 0 });
  });

  it('stops when told, and schedules nothing when nothing is deferred', async () => {
    const registry = new ConnectionRegistry(CONNECTION_RULES, new Set());
    registry.defer(entries(400));
    const stop = checkInBackground(registry, new RecordingLogger(), 0);
    await turn();
    stop();
    const left = registry.deferredCount;
    await turn();
    await turn();
    expect(registry.deferredCount).to.equal(left);
    const logger = new RecordingLogger();
    checkInBackground(new ConnectionRegistry(CONNECTION_RULES, new Set()), logger, 0);
    await turn();
    expect(logger.lines).to.deep.equal([]);
  });
});
