import { expect } from 'chai';
import {
  ConnectionRegistry,
  type ConnectionEvent,
} from '../../../../src/application/connections/connection-registry.js';
import type { ConnectionChange } from '../../../../src/application/ports/connection-directory.js';
import type { ConnectionDeclaration } from '../../../../src/domain/connections/connection.js';
import { error } from '../../../../src/domain/settings/problem.js';
import {
  CONNECTION_RULES,
  configuredOrigin,
  declaration,
  oidcSection,
  samlSection,
} from '../../../support/connection-declarations.js';

const RESERVED = new Set(['cookies', 'openidconnect', 'saml2']);
const FOLDER = '/srv/connections';
const inFolder = (name: string) => `${FOLDER}/${name}.json`;

const declared = (d: ConnectionDeclaration): ConnectionChange => ({ kind: 'declared', declaration: d });
const removed = (name: string, origin = inFolder(name)): ConnectionChange => ({ kind: 'removed', name, origin });

/** An event as a line: `added Acme`, `refused Acme <keys>`. */
function summary(event: ConnectionEvent): string {
  if (event.kind === 'refused') return `refused ${event.name} ${event.problems.map((p) => p.key).join(',')}`;
  return `${event.kind} ${event.connection.name}`;
}

describe('ConnectionRegistry: declarations applied, with their events', () => {
  let registry: ConnectionRegistry;
  let heard: string[];
  beforeEach(() => {
    registry = new ConnectionRegistry(CONNECTION_RULES, RESERVED);
    heard = [];
    registry.onEvent((event) => heard.push(summary(event)));
  });
  const apply = (...changes: ConnectionChange[]) => registry.apply(changes).map(summary);
  const acme = (extra: Record<string, unknown> = {}, origin = inFolder('acme')) =>
    declaration('acme', samlSection('acme', ['acme.com'], extra), origin);

  it('adds a valid declaration, and tells every listener what it returns', () => {
    expect(apply(declared(acme()))).to.deep.equal(['added acme']);
    expect(heard).to.deep.equal(['added acme']);
    expect(registry.byName('ACME')?.organization).to.equal('acme');
    expect(registry.byDomain('acme.com')?.name).to.equal('acme');
    expect(registry.size).to.equal(1);
  });

  it('carries the warnings of a connection it adds', () => {
    const production = new ConnectionRegistry({ ...CONNECTION_RULES, environment: 'production' }, RESERVED);
    const section = samlSection('acme', ['acme.com'], { AllowIdpInitiated: true });
    const [event] = production.apply([declared(declaration('acme', section))]);
    expect(event?.kind).to.equal('added');
    expect(event && 'warnings' in event ? event.warnings.map((w) => w.key) : []).to.deep.equal([
      `${configuredOrigin('acme')}:AllowIdpInitiated`,
    ]);
  });

  it('reports a change only when the declaration means something else (its fingerprint)', () => {
    apply(declared(acme()));
    expect(apply(declared(acme())), 'the same file written again').to.deep.equal([]);
    const reordered = declaration(
      'acme',
      Object.fromEntries(Object.entries(samlSection('acme', ['acme.com'])).reverse()),
      inFolder('acme'),
    );
    expect(apply(declared(reordered)), 'the same keys in another order').to.deep.equal([]);
    const [event] = registry.apply([declared(acme({ DisplayName: 'Acme Corp' }))]);
    expect(event?.kind).to.equal('changed');
    expect(event && 'previous' in event ? event.previous?.displayName : undefined).to.equal('acme');
    expect(registry.byName('acme')?.displayName).to.equal('Acme Corp');
  });

  it('refuses an invalid new declaration: not in force, listed as refused with its problems', () => {
    expect(apply(declared(acme({ Organization: '' })))).to.deep.equal([
      `refused acme ${inFolder('acme')}:Organization`,
    ]);
    expect(registry.byName('acme')).to.equal(undefined);
    expect(registry.byDomain('acme.com')).to.equal(undefined);
    expect([...registry.refused().keys()]).to.deep.equal(['acme']);
    expect(registry.refused().get('acme')?.origin).to.equal(inFolder('acme'));
  });

  it('refuses an invalid change and keeps the previous version in force', () => {
    apply(declared(acme({ DisplayName: 'v1' })));
    expect(apply(declared(acme({ DisplayName: 'v2', Domains: ['gmail.com'] })))).to.deep.equal([
      `refused acme ${inFolder('acme')}:Domains:0`,
    ]);
    expect(registry.byName('acme')?.displayName).to.equal('v1');
    expect(registry.byDomain('acme.com')?.name).to.equal('acme');
    expect(registry.refused().has('acme')).to.equal(true);
    // A valid version afterwards replaces it and clears the refusal.
    expect(apply(declared(acme({ DisplayName: 'v3' })))).to.deep.equal(['changed acme']);
    expect(registry.refused().has('acme')).to.equal(false);
  });

  it('refuses what reading found wrong (not JSON), keeping the previous version', () => {
    apply(declared(acme()));
    const broken = {
      name: 'acme',
      origin: inFolder('acme'),
      section: {},
      problems: [error(inFolder('acme'), 'is not valid JSON')],
    };
    expect(apply(declared(broken))).to.deep.equal([`refused acme ${inFolder('acme')},${inFolder('acme')}:Protocol`]);
    expect(registry.byName('acme')?.name).to.equal('acme');
  });

  it('refuses a declaration conflicting with another connection, naming the key under its origin', () => {
    apply(declared(acme()));
    const initech = declaration('initech', oidcSection('initech', ['ACME.com']), inFolder('initech'));
    expect(apply(declared(initech))).to.deep.equal([`refused initech ${inFolder('initech')}:Domains:0`]);
    const clash = declaration('Acme', oidcSection('acme2', ['acme2.com']));
    expect(apply(declared(clash))).to.deep.equal([`refused Acme ${configuredOrigin('Acme')}`]);
    expect(registry.byName('acme')?.origin).to.equal(inFolder('acme'));
  });

  it('removes a connection declared with Enabled false, as if deleted', () => {
    apply(declared(acme()));
    expect(apply(declared(acme({ Enabled: false })))).to.deep.equal(['removed acme']);
    expect(registry.byName('acme')).to.equal(undefined);
    expect(registry.byDomain('acme.com')).to.equal(undefined);
    expect(registry.refused().has('acme'), 'a disabled connection is not a refused one').to.equal(false);
    expect(apply(declared(acme({ Enabled: false }))), 'disabled again: nothing to remove').to.deep.equal([]);
    expect(apply(declared(acme())), 'enabled again').to.deep.equal(['added acme']);
  });

  it('removes a connection no longer declared, with everything it held', () => {
    apply(
      declared(acme({ Enabled: true })),
      declared(declaration('globex', oidcSection('globex', ['globex.com']), inFolder('globex'))),
    );
    expect(apply(removed('acme'))).to.deep.equal(['removed acme']);
    expect(registry.byName('acme')).to.equal(undefined);
    expect(registry.byName('globex')?.name).to.equal('globex');
    // Its domain is free for another organization now.
    expect(
      apply(declared(declaration('initech', oidcSection('initech', ['acme.com']), inFolder('initech')))),
    ).to.deep.equal(['added initech']);
    expect(apply(removed('nobody'))).to.deep.equal([]);
  });

  it('forgets the refusal of a declaration that is removed', () => {
    apply(declared(acme({ Organization: '' })));
    apply(removed('acme'));
    expect(registry.refused().size).to.equal(0);
  });

  it("never removes a connection of another origin: a folder file deleted or disabled leaves the configuration's connection of that name", () => {
    const configured = declaration('Acme', samlSection('acme', ['acme.com']));
    apply(declared(configured));
    // A file of the same name was refused (the name is taken); deleting it, or disabling it, removes nothing.
    expect(apply(declared(acme({ Organization: 'other' }, inFolder('acme'))))).to.deep.equal([
      `refused acme ${inFolder('acme')}`,
    ]);
    expect(apply(removed('acme', inFolder('acme')))).to.deep.equal([]);
    expect(apply(declared(acme({ Enabled: false }, inFolder('acme'))))).to.deep.equal([]);
    expect(registry.byName('acme')?.origin).to.equal(configuredOrigin('Acme'));
  });

  describe('a declaration refused for what another connection held', () => {
    const initech = (extra: Record<string, unknown> = {}) =>
      declaration('initech', oidcSection('initech', ['acme.com'], extra), inFolder('initech'));

    it('is taken once that connection is removed, as a restart would take it', () => {
      apply(declared(acme()));
      expect(apply(declared(initech()))).to.deep.equal([`refused initech ${inFolder('initech')}:Domains:0`]);
      expect(apply(removed('acme'))).to.deep.equal(['removed acme', 'added initech']);
      expect(registry.byDomain('acme.com')?.name).to.equal('initech');
      expect(registry.refused().size).to.equal(0);
    });

    it('is taken once that connection changes to give it up', () => {
      apply(declared(acme()));
      apply(declared(initech()));
      expect(apply(declared(acme({ Domains: ['acme.org'] })))).to.deep.equal(['changed acme', 'added initech']);
    });

    it('is not reported again while it is still refused', () => {
      apply(
        declared(acme()),
        declared(declaration('globex', oidcSection('globex', ['globex.com']), inFolder('globex'))),
      );
      apply(declared(initech()));
      expect(apply(removed('globex'))).to.deep.equal(['removed globex']);
      expect(registry.refused().has('initech')).to.equal(true);
    });

    it('stays refused for its own faults, unreported, when another connection goes', () => {
      apply(declared(acme()));
      apply(declared(initech({ Organization: '' })));
      expect(apply(removed('acme'))).to.deep.equal(['removed acme']);
      expect(registry.refused().has('initech')).to.equal(true);
    });
  });

  it('applies the changes of one poll in order', () => {
    expect(
      apply(
        declared(acme()),
        declared(acme({ DisplayName: 'Acme Corp' })),
        removed('acme'),
        declared(declaration('globex', oidcSection('globex', ['globex.com']), inFolder('globex'))),
      ),
    ).to.deep.equal(['added acme', 'changed acme', 'removed acme', 'added globex']);
  });
});
