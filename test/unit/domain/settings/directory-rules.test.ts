import { expect } from 'chai';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import { defaultSettings } from '../../../../src/domain/settings/default-settings.js';
import { checkDirectory, usesEmbeddedDirectoryStore } from '../../../../src/domain/settings/directory-rules.js';
import type { SettingsProblem } from '../../../../src/domain/settings/problem.js';
import type { ProjectTemplateSettings } from '../../../../src/domain/settings/settings.js';

function settingsWith(change: (s: ProjectTemplateSettings) => void): ProjectTemplateSettings {
  const settings = defaultSettings(builtInProviders);
  change(settings);
  return settings;
}

const keysOf = (settings: ProjectTemplateSettings) => checkDirectory(settings).map((problem) => problem.key);

describe('checkDirectory: the limits of directory sync', () => {
  it('accepts the defaults: 20 refused SCIM credentials per client and minute', () => {
    const settings = defaultSettings(builtInProviders);
    expect(settings.Directory.FailedAuthenticationsPerMinute).to.equal(20);
    expect(checkDirectory(settings)).to.deep.equal([]);
  });

  for (const value of [0, -1, 2.5, Number.NaN]) {
    it(`refuses FailedAuthenticationsPerMinute = ${value}, naming the full key`, () => {
      expect(keysOf(settingsWith((s) => void (s.Directory.FailedAuthenticationsPerMinute = value)))).to.deep.equal([
        'ProjectTemplate:Directory:FailedAuthenticationsPerMinute',
      ]);
    });
  }

  it('accepts one refused credential per minute, the strictest', () => {
    expect(keysOf(settingsWith((s) => void (s.Directory.FailedAuthenticationsPerMinute = 1)))).to.deep.equal([]);
  });
});

const ENABLED = 'ProjectTemplate:Directory:Enabled';
const EMBEDDED_FILE = 'ProjectTemplate:Directory:EmbeddedFile';
/** A value no problem may quote. */
const SENTINEL = 'SENTINEL-directory-rules-5e1c';

/** The defaults with directory sync on over the administration API, without a database: a configuration that passes. */
function syncWith(change: (s: ProjectTemplateSettings) => void = () => {}): ProjectTemplateSettings {
  const settings = defaultSettings(builtInProviders);
  settings.Administration.Enabled = true;
  settings.Directory.Enabled = true;
  change(settings);
  return settings;
}

const withDatabase = (s: ProjectTemplateSettings) =>
  void (s.Database.ConnectionString = `postgresql://gatehouse:${SENTINEL}@db.example/gatehouse`);
const onRedis = (s: ProjectTemplateSettings) => void (s.Session.Store = 'Redis');
const errors = (problems: SettingsProblem[]) => problems.filter((problem) => problem.severity === 'error');
const errorKeys = (problems: SettingsProblem[]) => errors(problems).map((problem) => problem.key);

describe('checkDirectory: where directory sync keeps its directories', () => {
  it('keeps them in the embedded store without a database, and in PostgreSQL with one; never while off', () => {
    expect(usesEmbeddedDirectoryStore(syncWith())).to.equal(true);
    expect(usesEmbeddedDirectoryStore(syncWith(withDatabase))).to.equal(false);
    expect(usesEmbeddedDirectoryStore(syncWith((s) => void (s.Directory.Enabled = false)))).to.equal(false);
    // Spaces alone are no database.
    expect(usesEmbeddedDirectoryStore(syncWith((s) => void (s.Database.ConnectionString = '  ')))).to.equal(true);
  });

  it('accepts directory sync without a database (the embedded store, its default file) and with one', () => {
    expect(syncWith().Directory.EmbeddedFile).to.equal('data/directory.sqlite');
    expect(checkDirectory(syncWith(), true)).to.deep.equal([]);
    expect(checkDirectory(syncWith(withDatabase), true)).to.deep.equal([]);
  });

  it('refuses the embedded store beside sessions in Redis (several instances), naming PostgreSQL; accepts Redis with a database', () => {
    const problems = checkDirectory(syncWith(onRedis), true);
    expect(errorKeys(problems)).to.deep.equal([ENABLED]);
    expect(problems[0]!.message).to.contain('Database:ConnectionString');
    expect(problems[0]!.message).to.contain('PostgreSQL');
    expect(
      checkDirectory(
        syncWith((s) => (onRedis(s), withDatabase(s))),
        true,
      ),
    ).to.deep.equal([]);
  });

  it('refuses the embedded store on a Node.js without node:sqlite, naming both fixes; a database needs none', () => {
    const problems = checkDirectory(syncWith(), false);
    expect(errorKeys(problems)).to.deep.equal([ENABLED]);
    expect(problems[0]!.message).to.contain('Node.js 22.13 or later');
    expect(problems[0]!.message).to.contain('Database:ConnectionString');
    expect(checkDirectory(syncWith(withDatabase), false)).to.deep.equal([]);
    expect(
      checkDirectory(
        syncWith((s) => void (s.Directory.Enabled = false)),
        false,
      ),
    ).to.deep.equal([]);
  });

  it('needs a file for the embedded store, and ignores the key when a database is set', () => {
    expect(
      errorKeys(
        checkDirectory(
          syncWith((s) => void (s.Directory.EmbeddedFile = ' ')),
          true,
        ),
      ),
    ).to.deep.equal([EMBEDDED_FILE]);
    expect(
      checkDirectory(
        syncWith((s) => (withDatabase(s), (s.Directory.EmbeddedFile = ''))),
        true,
      ),
    ).to.deep.equal([]);
  });

  it('still needs the administration API, with a database or without', () => {
    for (const change of [() => {}, withDatabase]) {
      const settings = syncWith((s) => (change(s), (s.Administration.Enabled = false)));
      expect(errorKeys(checkDirectory(settings, true))).to.deep.equal([ENABLED]);
    }
  });

  it('quotes no configured value in any problem', () => {
    const settings = syncWith((s) => (onRedis(s), (s.Directory.EmbeddedFile = '')));
    const problems = checkDirectory(settings, false);
    expect(problems).to.have.length(3);
    expect(JSON.stringify(problems)).not.to.contain(SENTINEL);
    const withPath = checkDirectory(
      syncWith((s) => (onRedis(s), (s.Directory.EmbeddedFile = SENTINEL))),
      false,
    );
    expect(JSON.stringify(withPath)).not.to.contain(SENTINEL);
  });
});

describe('checkDirectory: how long the feed of changes keeps a change', () => {
  it('keeps 30 days by default, and accepts 1 and 3650 days', () => {
    expect(defaultSettings(builtInProviders).Directory.ChangeRetentionDays).to.equal(30);
    for (const days of [1, 3_650]) {
      expect(keysOf(settingsWith((s) => void (s.Directory.ChangeRetentionDays = days))), String(days)).to.deep.equal(
        [],
      );
    }
  });

  for (const value of [0, -5, 1.5, 3_651, Number.NaN]) {
    it(`refuses ChangeRetentionDays = ${value}, naming the full key`, () => {
      expect(keysOf(settingsWith((s) => void (s.Directory.ChangeRetentionDays = value)))).to.deep.equal([
        'ProjectTemplate:Directory:ChangeRetentionDays',
      ]);
    });
  }
});

describe("checkDirectory: each organization's share of slow searches on the embedded store", () => {
  it('gives 3,000 ms a minute by default, and accepts 500 and 60,000', () => {
    expect(defaultSettings(builtInProviders).Directory.EmbeddedSearchMsPerMinute).to.equal(3_000);
    for (const ms of [500, 60_000]) {
      expect(keysOf(settingsWith((s) => void (s.Directory.EmbeddedSearchMsPerMinute = ms))), String(ms)).to.deep.equal(
        [],
      );
    }
  });

  for (const value of [0, 499, 60_001, 1_000.5, Number.NaN]) {
    it(`refuses EmbeddedSearchMsPerMinute = ${value}, naming the full key`, () => {
      expect(keysOf(settingsWith((s) => void (s.Directory.EmbeddedSearchMsPerMinute = value)))).to.deep.equal([
        'ProjectTemplate:Directory:EmbeddedSearchMsPerMinute',
      ]);
    });
  }
});
