/**
 * Rotating `Administration:EncryptionKeys`: with a new key B put before the old key A,
 * `npm run connections:reencrypt` seals every stored secret again under B, so A can be
 * removed. Over the folder catalog in a fresh folder, through the module and through the
 * script as an operator runs it.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  reencryptCatalog,
  type ReencryptOutcome,
  type ReencryptParts,
} from '../../../src/application/administration/reencrypt-catalog.js';
import type { CatalogEntry } from '../../../src/application/ports/connection-catalog.js';
import { settingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { sectionReader } from '../../../src/adapters/connections/connection-section.js';
import { FolderConnectionCatalog } from '../../../src/adapters/connections/folder-connection-catalog.js';
import { FolderConnections } from '../../../src/adapters/connections/folder-connections.js';
import { SecretSealer } from '../../../src/adapters/secrets/secret-sealer.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { exitOf, spawnEntryPoint } from '../../support/run-main.js';

/** Sentinel secrets: never to be printed, nor stored in the clear. */
const CLIENT_SECRET = 'SENTINEL-reencrypt-client-secret-7d41';
const SIGNING_KEY = 'SENTINEL-reencrypt-signing-key-90ab';
const newKey = () => randomBytes(32).toString('base64');
const KEY_A = newKey();
const KEY_B = newKey();
/** A key no configuration below lists. */
const KEY_LOST = newKey();
const noLog = { debug() {}, info() {}, warn() {}, error() {} };

describe('re-encrypting the connection catalog (npm run connections:reencrypt)', function () {
  this.timeout(20_000);
  let folder: string;
  let catalog: FolderConnectionCatalog;
  let secretKeys: readonly string[];
  const underA = new SecretSealer([KEY_A]);

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'gatehouse-reencrypt-'));
    const reader = sectionReader(await settingsSchema(builtInProviders));
    secretKeys = reader.secretKeys;
    catalog = new FolderConnectionCatalog(folder, new FolderConnections(folder, reader, noLog));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  /** Stores an OpenID connection whose client secret is sealed by `sealer`, and a domain proof. */
  async function storeOidc(name: string, sealer: SecretSealer = underA): Promise<CatalogEntry> {
    const context = { connection: name.toLowerCase(), field: 'ClientSecret' };
    const outcome = await catalog.put(
      {
        name,
        keys: {
          Protocol: 'OpenIdConnect',
          Organization: name.toLowerCase(),
          Domains: [`${name.toLowerCase()}.test`],
          Authority: 'https://id.example.test',
          ClientId: `${name.toLowerCase()}-client`,
          ClientSecret: sealer.seal(CLIENT_SECRET, context),
        },
        domains: [
          { domain: `${name.toLowerCase()}.test`, token: 'AAAAAAAAAAAAAAAAAAAAAA', verifiedAt: 1_000, misses: 0 },
        ],
      },
      0,
      1_000,
    );
    if (outcome.kind !== 'written') throw new Error('not stored');
    return outcome.entry;
  }

  /** Stores a SAML connection with two secrets (a signing key and an encryption key) sealed under A. */
  async function storeSaml(name: string): Promise<void> {
    const seal = (field: string) => underA.seal(SIGNING_KEY, { connection: name.toLowerCase(), field });
    await catalog.put(
      {
        name,
        keys: {
          Protocol: 'Saml2',
          Organization: name.toLowerCase(),
          Domains: [],
          MetadataUrl: 'https://idp.example.test/metadata',
          SigningKey: seal('SigningKey'),
          EncryptionKey: seal('EncryptionKey'),
        },
        domains: [],
      },
      0,
      1_000,
    );
  }

  const parts = (keys: string[], over: Partial<ReencryptParts> = {}): ReencryptParts => ({
    catalog,
    sealing: new SecretSealer(keys),
    secretKeys,
    now: () => 2_000,
    ...over,
  });

  it('reseals every secret sealed under the old key: it opens with the new key alone, no longer with the old', async () => {
    await storeOidc('Acme');
    await storeSaml('Initrode');
    const outcomes: ReencryptOutcome[] = [];

    const summary = await reencryptCatalog(parts([KEY_B, KEY_A]), (outcome) => outcomes.push(outcome));

    expect(summary).to.deep.equal({ entries: 2, resealed: 2, current: 0, failed: 0 });
    expect(outcomes).to.deep.equal([
      { kind: 'resealed', connection: 'Acme', keys: ['ClientSecret'], version: 2 },
      { kind: 'resealed', connection: 'Initrode', keys: ['EncryptionKey', 'SigningKey'], version: 2 },
    ]);
    const rotated = new SecretSealer([KEY_B, KEY_A]);
    const onlyB = new SecretSealer([KEY_B]);
    const acme = (await catalog.get('Acme'))!;
    const secret = acme.keys.ClientSecret as string;
    expect(rotated.needsResealing(secret)).to.equal(false);
    expect(onlyB.open(secret, { connection: 'acme', field: 'ClientSecret' })).to.equal(CLIENT_SECRET);
    expect(() => underA.open(secret, { connection: 'acme', field: 'ClientSecret' })).to.throw(/not among/);
    // The rest of the entry is as it was: its keys, and its domain's proof.
    expect(acme).to.deep.include({ version: 2, updatedAt: 2_000 });
    expect(acme.keys).to.include({ ClientId: 'acme-client', Authority: 'https://id.example.test' });
    expect(acme.domains).to.deep.equal([
      { domain: 'acme.test', token: 'AAAAAAAAAAAAAAAAAAAAAA', verifiedAt: 1_000, misses: 0 },
    ]);
    const initrode = (await catalog.get('Initrode'))!;
    for (const field of ['SigningKey', 'EncryptionKey']) {
      const sealed = initrode.keys[field] as string;
      expect(onlyB.open(sealed, { connection: 'initrode', field })).to.equal(SIGNING_KEY);
      expect(rotated.needsResealing(sealed)).to.equal(false);
    }
    expect(readFileSync(join(folder, 'Acme.json'), 'utf8')).not.to.include(CLIENT_SECRET);
  });

  it('names a secret sealed under a key no longer listed, by connection and key, leaves its entry as it was, and does the rest', async () => {
    await storeOidc('Acme');
    const lost = await storeOidc('Hooli', new SecretSealer([KEY_LOST]));
    await storeOidc('Umbrella');
    const outcomes: ReencryptOutcome[] = [];

    const summary = await reencryptCatalog(parts([KEY_B, KEY_A]), (outcome) => outcomes.push(outcome));

    expect(summary).to.deep.equal({ entries: 3, resealed: 2, current: 0, failed: 1 });
    const failed = outcomes.find((outcome) => outcome.kind === 'failed');
    expect(failed).to.deep.equal({
      kind: 'failed',
      connection: 'Hooli',
      problems: [
        {
          key: 'ClientSecret',
          reason: 'is sealed under a key not among Administration:EncryptionKeys: put back the key it was sealed with',
        },
      ],
    });
    expect(JSON.stringify(outcomes))
      .not.to.include(CLIENT_SECRET)
      .and.not.include(lost.keys.ClientSecret as string);
    expect(await catalog.get('Hooli')).to.deep.equal(lost);
    expect((await catalog.get('Umbrella'))?.version).to.equal(2);
  });

  it('does nothing the second time: every secret is under the first key already', async () => {
    await storeOidc('Acme');
    await storeSaml('Initrode');
    await reencryptCatalog(parts([KEY_B, KEY_A]));
    const files = () => ['Acme.json', 'Initrode.json'].map((file) => readFileSync(join(folder, file), 'utf8'));
    const before = files();

    const again = await reencryptCatalog(parts([KEY_B, KEY_A]));

    expect(again).to.deep.equal({ entries: 2, resealed: 0, current: 2, failed: 0 });
    expect(files()).to.deep.equal(before);
  });

  it("keeps an administrator's write made between its read and its write: the entry is read again and resealed", async () => {
    await storeOidc('Acme');
    let interleaved = 0;
    // An administrator changes Acme just before each of the command's writes, the first time only.
    const racing: ReencryptParts['catalog'] = {
      list: (query) => catalog.list(query),
      get: (name) => catalog.get(name),
      put: async (write, expected, at) => {
        if (interleaved++ === 0) {
          const current = (await catalog.get(write.name))!;
          await catalog.put(
            { ...current, keys: { ...current.keys, DisplayName: 'Acme Corp' } },
            current.version,
            1_500,
          );
        }
        return catalog.put(write, expected, at);
      },
    };

    const summary = await reencryptCatalog(parts([KEY_B, KEY_A], { catalog: racing }));

    expect(summary).to.deep.equal({ entries: 1, resealed: 1, current: 0, failed: 0 });
    const acme = (await catalog.get('Acme'))!;
    expect(acme.version).to.equal(3);
    expect(acme.keys.DisplayName).to.equal('Acme Corp');
    expect(
      new SecretSealer([KEY_B]).open(acme.keys.ClientSecret as string, { connection: 'acme', field: 'ClientSecret' }),
    ).to.equal(CLIENT_SECRET);
  });

  it('reports an entry still changing at the second try and goes on with the others', async () => {
    await storeOidc('Acme');
    await storeOidc('Globex');
    const busy: ReencryptParts['catalog'] = {
      list: (query) => catalog.list(query),
      get: (name) => catalog.get(name),
      put: async (write, expected, at) =>
        write.name === 'Acme' ? { kind: 'conflict', currentVersion: 7 } : catalog.put(write, expected, at),
    };
    const outcomes: ReencryptOutcome[] = [];

    const summary = await reencryptCatalog(parts([KEY_B, KEY_A], { catalog: busy }), (outcome) =>
      outcomes.push(outcome),
    );

    expect(summary).to.deep.equal({ entries: 2, resealed: 1, current: 0, failed: 1 });
    expect(outcomes[0]).to.deep.include({ kind: 'failed', connection: 'Acme' });
    expect((await catalog.get('Globex'))?.version).to.equal(2);
  });

  it('pages through a catalog longer than one page', async () => {
    const names = Array.from({ length: 105 }, (_, index) => `Org${String(index).padStart(3, '0')}`);
    for (const name of names) await storeOidc(name);

    const summary = await reencryptCatalog(parts([KEY_B, KEY_A]));

    expect(summary).to.deep.equal({ entries: 105, resealed: 105, current: 0, failed: 0 });
    expect((await catalog.get('Org104'))?.version).to.equal(2);
  });

  it('runs as an operator runs it, with the settings in environment variables: names connections, prints no secret, exits 1 until every entry is resealed', async function () {
    this.timeout(60_000);
    await storeOidc('Acme');
    await storeOidc('Hooli', new SecretSealer([KEY_LOST]));
    const before = readFileSync(join(folder, 'Acme.json'), 'utf8');
    const env = {
      NODE_ENV: 'test',
      ProjectTemplate__Authentication__ConnectionsDirectory: folder,
      ProjectTemplate__Administration__EncryptionKeys__0: KEY_B,
      ProjectTemplate__Administration__EncryptionKeys__1: KEY_A,
    };
    const run = async () => {
      const script = spawnEntryPoint(['--import', 'tsx', 'scripts/reencrypt-connections.ts'], env);
      const code = await exitOf(script.child);
      const { stdout, stderr } = script.output();
      for (const secret of [CLIENT_SECRET, KEY_A, KEY_B, KEY_LOST]) expect(`${stdout}${stderr}`).not.to.include(secret);
      return { code, stdout, stderr };
    };

    const first = await run();
    expect(first.code, first.stderr).to.equal(1);
    expect(first.stdout).to.contain('resealed Acme: ClientSecret (now version 2)');
    expect(first.stdout).to.contain(
      '2 connection(s) in the catalog: 1 resealed, 0 already under the first key, 1 not resealed.',
    );
    expect(first.stderr).to.contain('not resealed Hooli: ClientSecret is sealed under a key not among');
    const after = JSON.parse(readFileSync(join(folder, 'Acme.json'), 'utf8')) as Record<string, any>;
    expect(after.ClientSecret).not.to.equal(JSON.parse(before).ClientSecret);
    expect(after.$catalog.version).to.equal(2);
    expect(new SecretSealer([KEY_B]).open(after.ClientSecret, { connection: 'acme', field: 'ClientSecret' })).to.equal(
      CLIENT_SECRET,
    );

    // The operator gives Hooli's secret again (here: removes it), and runs the command once more.
    unlinkSync(join(folder, 'Hooli.json'));
    const second = await run();
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stdout).to.contain(
      '1 connection(s) in the catalog: 0 resealed, 1 already under the first key, 0 not resealed.',
    );
  });
});
