import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SecretSealer } from '../../../src/adapters/secrets/secret-sealer.js';
import { checkEncryptionKeys } from '../../../src/domain/settings/encryption-key-rules.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const printKey = async () =>
  (await promisify(execFile)(process.execPath, ['--import=tsx', 'scripts/new-encryption-key.ts'], { cwd: root }))
    .stdout;

describe('scripts/new-encryption-key.ts', () => {
  it('prints one new key the setting accepts and the sealer uses, different each run', async () => {
    const [first, second] = await Promise.all([printKey(), printKey()]);
    for (const output of [first, second]) {
      expect(output).to.match(/^[A-Za-z0-9+/]{43}=\n$/);
      const key = output.trim();
      expect(Buffer.from(key, 'base64')).to.have.length(32);
      expect(checkEncryptionKeys([key])).to.deep.equal([]);
      const sealer = new SecretSealer([key]);
      const context = { connection: 'acme', field: 'ClientSecret' };
      expect(sealer.open(sealer.seal('s3cret', context), context)).to.equal('s3cret');
    }
    expect(first).to.not.equal(second);
  });
});
