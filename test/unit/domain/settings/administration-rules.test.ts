import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import { checkAdministration } from '../../../../src/domain/settings/administration-rules.js';
import { defaultSettings } from '../../../../src/domain/settings/default-settings.js';
import type { SettingsProblem } from '../../../../src/domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings } from '../../../../src/domain/settings/settings.js';

const ADMIN = 'ProjectTemplate:Administration';
const CONNECTION_STRING = 'ProjectTemplate:Database:ConnectionString';
/** Values that must never be quoted by a problem. */
const SENTINEL = 'SENTINEL-administration-rules-3b9d';
const API_KEY_HASH = createHash('sha256').update('gh_a-key').digest('hex');

/** The defaults with the API on over a folder, a key's hash and a sealing key: a configuration that passes. */
function settingsWith(change: (s: ProjectTemplateSettings) => void = () => {}): ProjectTemplateSettings {
  const settings = defaultSettings(builtInProviders);
  settings.Administration.Enabled = true;
  settings.Administration.ApiKeys = [API_KEY_HASH];
  settings.Administration.EncryptionKeys = [randomBytes(32).toString('base64')];
  settings.Authentication.ConnectionsDirectory = './connections';
  change(settings);
  return settings;
}

const check = (settings: ProjectTemplateSettings, environment: Environment = 'development') =>
  checkAdministration(settings, environment);
const keysOf = (problems: SettingsProblem[], severity: SettingsProblem['severity'] = 'error') =>
  problems.filter((problem) => problem.severity === severity).map((problem) => problem.key);

describe('checkAdministration: the rules of Administration and Database', () => {
  it('accepts the defaults (the API off) and a configuration that turns it on properly', () => {
    expect(check(defaultSettings(builtInProviders))).to.deep.equal([]);
    expect(check(settingsWith())).to.deep.equal([]);
    expect(check(settingsWith(), 'production')).to.deep.equal([]);
  });

  describe('ApiKeys', () => {
    it("accepts a key's SHA-256 in lower-case hex", () => {
      expect(
        check(settingsWith((s) => void (s.Administration.ApiKeys = [API_KEY_HASH, 'f'.repeat(64)]))),
      ).to.deep.equal([]);
    });
    const bad: ReadonlyArray<[label: string, value: string]> = [
      ['the key itself', `gh_${SENTINEL}`],
      ['a hash in capitals', API_KEY_HASH.toUpperCase()],
      ['a hash one digit short', API_KEY_HASH.slice(1)],
      ['a hash with a space after it', `${API_KEY_HASH} `],
      ['a hash in base64', createHash('sha256').update('gh_a-key').digest('base64')],
    ];
    for (const [label, value] of bad) {
      it(`refuses ${label}, naming its index`, () => {
        const problems = check(settingsWith((s) => void (s.Administration.ApiKeys = [API_KEY_HASH, value])));
        expect(keysOf(problems)).to.deep.equal([`${ADMIN}:ApiKeys:1`]);
        expect(JSON.stringify(problems)).to.not.include(value.trim());
      });
    }
  });

  describe('EncryptionKeys', () => {
    it('refuses a key that is not 32 bytes of base64, naming its index and never quoting it', () => {
      const good = randomBytes(32).toString('base64');
      const problems = check(settingsWith((s) => void (s.Administration.EncryptionKeys = [good, SENTINEL])));
      expect(keysOf(problems)).to.deep.equal([`${ADMIN}:EncryptionKeys:1`]);
      expect(JSON.stringify(problems)).to.not.include(SENTINEL);
    });
  });

  describe('DnsServers', () => {
    it('accepts an IP address with or without a port (IPv6 with one in brackets)', () => {
      const servers = ['127.0.0.1:5353', '[::1]:53', '[2001:db8::1]', '1.1.1.1', '::1', ' 9.9.9.9:53 '];
      expect(check(settingsWith((s) => void (s.Administration.DnsServers = servers)))).to.deep.equal([]);
    });
    // A host name too: the resolver takes addresses only, and would stop the start on a name.
    const bad = [
      'udp://1.1.1.1',
      '1.1.1.1:dns',
      '1.1.1.1:123456',
      '[::1',
      'dns example',
      '',
      '1.1.1.1/24',
      'dns.example.com',
      'localhost:53',
      '999.1.1.1',
    ];
    for (const server of bad) {
      it(`refuses ${JSON.stringify(server)}, naming its index`, () => {
        const problems = check(settingsWith((s) => void (s.Administration.DnsServers = ['127.0.0.1:53', server])));
        expect(keysOf(problems)).to.deep.equal([`${ADMIN}:DnsServers:1`]);
      });
    }
  });

  describe('the record prefixes', () => {
    it("accepts a deployment's own name and value prefixes", () => {
      const settings = settingsWith((s) => {
        s.Administration.DomainRecordPrefix = '_acme-sso';
        s.Administration.DomainValuePrefix = 'acme-sso=';
      });
      expect(check(settings)).to.deep.equal([]);
    });
    const badNames = ['two labels.x', '_has space', '', 'a'.repeat(64), 'dot.ted'];
    for (const prefix of badNames) {
      it(`refuses the name prefix ${JSON.stringify(prefix)}`, () => {
        const problems = check(settingsWith((s) => void (s.Administration.DomainRecordPrefix = prefix)));
        expect(keysOf(problems)).to.deep.equal([`${ADMIN}:DomainRecordPrefix`]);
      });
    }
    const badValues = ['has space=', 'quoted"=', '', 'x'.repeat(65), 'tab\t='];
    for (const prefix of badValues) {
      it(`refuses the value prefix ${JSON.stringify(prefix)}, naming that key`, () => {
        const problems = check(settingsWith((s) => void (s.Administration.DomainValuePrefix = prefix)));
        expect(keysOf(problems)).to.deep.equal([`${ADMIN}:DomainValuePrefix`]);
      });
    }
  });

  describe('the re-check', () => {
    const seconds: ReadonlyArray<[value: number, ok: boolean]> = [
      [60, true],
      [86_400, true],
      [59, false],
      [0, false],
      [-86_400, false],
      [3600.5, false],
      [Number.NaN, false],
    ];
    for (const [value, ok] of seconds) {
      it(`${ok ? 'accepts' : 'refuses'} DomainRecheckSeconds ${value}`, () => {
        const problems = check(settingsWith((s) => void (s.Administration.DomainRecheckSeconds = value)));
        expect(keysOf(problems)).to.deep.equal(ok ? [] : [`${ADMIN}:DomainRecheckSeconds`]);
      });
    }
    const misses: ReadonlyArray<[value: number, ok: boolean]> = [
      [1, true],
      [3, true],
      [0, false],
      [-1, false],
      [2.5, false],
    ];
    for (const [value, ok] of misses) {
      it(`${ok ? 'accepts' : 'refuses'} DomainMissesBeforeUnverified ${value}`, () => {
        const problems = check(settingsWith((s) => void (s.Administration.DomainMissesBeforeUnverified = value)));
        expect(keysOf(problems)).to.deep.equal(ok ? [] : [`${ADMIN}:DomainMissesBeforeUnverified`]);
      });
    }
  });

  describe('Enabled', () => {
    it('needs a catalog to write into: the folder or PostgreSQL', () => {
      const none = settingsWith((s) => void (s.Authentication.ConnectionsDirectory = '  '));
      expect(keysOf(check(none))).to.deep.equal([`${ADMIN}:Enabled`]);
      const database = settingsWith((s) => {
        s.Authentication.ConnectionsDirectory = '';
        s.Database.ConnectionString = 'postgresql://gatehouse@db.internal/gatehouse';
      });
      expect(check(database)).to.deep.equal([]);
    });

    it('needs Authentication:Enabled', () => {
      const problems = check(settingsWith((s) => void (s.Authentication.Enabled = false)));
      expect(keysOf(problems)).to.deep.equal([`${ADMIN}:Enabled`]);
      expect(problems[0]?.message).to.include('Authentication:Enabled');
    });

    it('needs a permission to manage with', () => {
      expect(keysOf(check(settingsWith((s) => void (s.Administration.ManagePermission = ' '))))).to.deep.equal([
        `${ADMIN}:ManagePermission`,
      ]);
    });

    it('asks none of that while the API is off', () => {
      const off = settingsWith((s) => {
        s.Administration.Enabled = false;
        s.Authentication.Enabled = false;
        s.Authentication.ConnectionsDirectory = '';
        s.Administration.ManagePermission = '';
        s.Administration.AllowPrivateNetworks = true;
      });
      expect(check(off, 'production')).to.deep.equal([]);
    });
  });

  describe('AllowPrivateNetworks', () => {
    it('warns in production, and only there', () => {
      const allowed = settingsWith((s) => void (s.Administration.AllowPrivateNetworks = true));
      const production = check(allowed, 'production');
      expect(keysOf(production, 'warning')).to.deep.equal([`${ADMIN}:AllowPrivateNetworks`]);
      expect(keysOf(production)).to.deep.equal([]);
      expect(check(allowed, 'development')).to.deep.equal([]);
      expect(check(allowed, 'test')).to.deep.equal([]);
    });
  });

  describe('Database:ConnectionString', () => {
    for (const value of ['postgresql://u:p@db/gatehouse', 'postgres://db/gatehouse', 'POSTGRESQL://db/x', '']) {
      it(`accepts ${JSON.stringify(value)}`, () => {
        expect(check(settingsWith((s) => void (s.Database.ConnectionString = value)))).to.deep.equal([]);
      });
    }
    for (const value of [
      `mysql://gatehouse:${SENTINEL}@db/gatehouse`,
      `host=db user=gatehouse password=${SENTINEL}`,
      `postgresql:/${SENTINEL}`,
    ]) {
      it(`refuses ${value.split(SENTINEL)[0]}..., never quoting it`, () => {
        const problems = check(settingsWith((s) => void (s.Database.ConnectionString = value)));
        expect(keysOf(problems)).to.deep.equal([CONNECTION_STRING]);
        expect(JSON.stringify(problems)).to.not.include(SENTINEL);
      });
    }
  });

  it('quotes no configured value in any problem, whatever is wrong at once', () => {
    const settings = settingsWith((s) => {
      s.Database.ConnectionString = `mysql://root:${SENTINEL}@db/x`;
      s.Administration.ApiKeys = [`gh_${SENTINEL}`];
      s.Administration.EncryptionKeys = [`${SENTINEL}==`, SENTINEL];
      s.Administration.DnsServers = [`${SENTINEL} 53`];
      s.Administration.DomainRecordPrefix = `${SENTINEL}.x`;
      s.Administration.DomainValuePrefix = `${SENTINEL} =`;
      s.Administration.ManagePermission = '';
      s.Administration.AllowPrivateNetworks = true;
      s.Authentication.Enabled = false;
    });
    const problems = check(settings, 'production');
    expect(problems.length).to.be.greaterThan(7);
    expect(JSON.stringify(problems)).to.not.include(SENTINEL);
  });
});
