import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applicationIdentity } from '../../../src/bootstrap/application-identity.js';

describe("applicationIdentity (the application's name on its pages and in its build, from package.json)", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gatehouse-identity-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const identityOf = (manifest: unknown) => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    return applicationIdentity(dir);
  };

  it('shows displayName when package.json has one (Gatehouse itself)', () => {
    expect(identityOf({ name: 'gatehouse', displayName: 'Gatehouse', version: '0.1.0' })).to.deep.equal({
      name: 'gatehouse',
      version: '0.1.0',
      displayName: 'Gatehouse',
    });
  });

  it('falls back to the package name without one, or with one that is blank or not text (a generated project)', () => {
    for (const displayName of [undefined, '  ', 42, null])
      expect(identityOf({ name: 'my-app', version: '0.1.0', displayName }).displayName).to.equal('my-app');
  });
});
