import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../../../src/adapters/config/load-configuration.js';
import { settingsSchema, type SettingsSchema } from '../../../src/adapters/config/settings-schema.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';

const EMAIL_CLAIM = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';
const MAPPINGS = 'ProjectTemplate__Authentication__ClaimsTransformation__Mappings__Saml2';
const CLASSES = 'ProjectTemplate__Authentication__AuthnContextClassMethods';

/**
 * Keys whose path holds a name from elsewhere (a claim URI, a SAML class) have a spelling
 * of letters, digits and `_`, the only names /bin/sh (dash) passes on: a labelled row. An
 * operator who sets the environment the way dash allows gets the same settings as the
 * file; one who relies on a name dash would drop is warned.
 */
describe('shell-safe spellings of keys that hold names (labelled rows)', () => {
  let root: string;
  let schema: SettingsSchema;
  before(async () => {
    schema = await settingsSchema(builtInProviders);
  });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-shell-safe-'));
    mkdirSync(join(root, 'config'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfiguration(root, env, schema);

  it('reads a claim mapping and a SAML class row given as labelled rows, in any letter case', () => {
    const { settings, problems } = load({
      [`${MAPPINGS}__Email__Source`]: EMAIL_CLAIM,
      [`${MAPPINGS}__Email__TARGET`]: 'application:email',
      [`${CLASSES}__OktaMfa__Class`]: 'urn:okta:saml:mfa',
      [`${CLASSES}__OktaMfa__Methods`]: 'pwd mfa',
      ProjectTemplate__Authentication__Connections__Acme__ClaimMappings__Dept__Source: 'urn:oid:2.5.4.11',
      ProjectTemplate__Authentication__Connections__Acme__ClaimMappings__Dept__Target: 'application:group',
    });
    expect(problems).to.deep.equal([]);
    expect(settings.Authentication.ClaimsTransformation.Mappings.Saml2).to.deep.equal({
      [EMAIL_CLAIM]: 'application:email',
    });
    expect(settings.Authentication.AuthnContextClassMethods).to.deep.equal({ 'urn:okta:saml:mfa': 'pwd mfa' });
    expect(settings.Authentication.Connections.Acme?.ClaimMappings).to.deep.equal({
      'urn:oid:2.5.4.11': 'application:group',
    });
  });

  it("reads a connection's RoleMappings and PermissionMappings as labelled rows: a group value with dots, spaces and @", () => {
    const connection = 'ProjectTemplate__Authentication__Connections__Acme__';
    const { settings, problems } = load({
      [`${connection}RoleMappings__Admins__Source`]: 'Gatehouse.Admin',
      [`${connection}RoleMappings__Admins__Target`]: 'admin',
      [`${connection}RoleMappings__Google__Source`]: 'gatehouse admins@acme.test',
      [`${connection}RoleMappings__Google__Target`]: 'admin',
      [`${connection}PermissionMappings__Billing__Source`]: 'Billing.Read',
      [`${connection}PermissionMappings__Billing__Target`]: 'billing.read',
    });
    expect(problems).to.deep.equal([]);
    expect(settings.Authentication.Connections.Acme?.RoleMappings).to.deep.equal({
      'Gatehouse.Admin': 'admin',
      'gatehouse admins@acme.test': 'admin',
    });
    expect(settings.Authentication.Connections.Acme?.PermissionMappings).to.deep.equal({
      'Billing.Read': 'billing.read',
    });
  });

  it('lets a labelled row in the environment replace the file row of the same claim', () => {
    writeFileSync(
      join(root, 'config', 'appsettings.json'),
      JSON.stringify({
        ProjectTemplate: {
          Authentication: { ClaimsTransformation: { Mappings: { Saml2: { [EMAIL_CLAIM]: 'application:name' } } } },
        },
      }),
    );
    const { settings } = load({
      [`${MAPPINGS}__Email__Source`]: EMAIL_CLAIM,
      [`${MAPPINGS}__Email__Target`]: 'application:email',
    });
    expect(settings.Authentication.ClaimsTransformation.Mappings.Saml2).to.deep.equal({
      [EMAIL_CLAIM]: 'application:email',
    });
  });

  it('refuses a row without its Target, with a field of its own, or mapping a claim mapped already, naming each row', () => {
    writeFileSync(join(root, '.env'), `${MAPPINGS}__${EMAIL_CLAIM}=application:name\n`);
    const { problems } = load({
      [`${MAPPINGS}__Email__Source`]: EMAIL_CLAIM,
      [`${MAPPINGS}__Email__Target`]: 'application:email',
      [`${MAPPINGS}__Name__Source`]: 'name',
      [`${CLASSES}__Mfa__Class`]: 'urn:mfa',
      [`${CLASSES}__Mfa__Methods`]: 'mfa',
      [`${CLASSES}__Mfa__Comment`]: 'for Okta',
    });
    const environmentProblems = problems.map(({ key, severity }) => `${severity} ${key}`);
    expect(environmentProblems).to.have.members([
      'error ProjectTemplate:Authentication:ClaimsTransformation:Mappings:Saml2:Name',
      'error ProjectTemplate:Authentication:AuthnContextClassMethods:Mfa',
    ]);
    // The .env file and the environment are two sources: the environment's row replaces the file's.
    const dotenvAndRow = load({});
    expect(dotenvAndRow.problems).to.deep.equal([]);
    writeFileSync(
      join(root, '.env'),
      `${MAPPINGS}__${EMAIL_CLAIM}=application:name\n${MAPPINGS}__Email__Source=${EMAIL_CLAIM}\n${MAPPINGS}__Email__Target=application:email\n`,
    );
    expect(load({}).problems.map(({ key, message }) => `${key} ${message}`)).to.deep.equal([
      `ProjectTemplate:Authentication:ClaimsTransformation:Mappings:Saml2:Email maps ${EMAIL_CLAIM}, which ProjectTemplate:Authentication:ClaimsTransformation:Mappings:Saml2:${EMAIL_CLAIM} maps too: keep one of them`,
    ]);
  });

  it('warns of an environment variable whose name /bin/sh would drop, naming its key; the same line in .env is fine', () => {
    const dotted =
      'ProjectTemplate__Authorization__StepUp__application.Role.Administrator__MaxAuthenticationAgeSeconds';
    const { problems, settings } = load({ [dotted]: '600' });
    expect(settings.Authorization.StepUp['application.Role.Administrator']).to.deep.equal({
      MaxAuthenticationAgeSeconds: 600,
    });
    expect(problems).to.have.length(1);
    expect(problems[0]).to.include({
      severity: 'warning',
      key: 'ProjectTemplate:Authorization:StepUp:application.Role.Administrator:MaxAuthenticationAgeSeconds',
    });
    expect(problems[0]?.message).to.contain('/bin/sh drops').and.contain('Policy key');
    expect(
      load({ 'ProjectTemplate__Authentication__Connections__acme-corp__Organization': 'acme' }).problems,
    ).to.have.length(1);

    writeFileSync(join(root, '.env'), `${dotted}=600\n`);
    expect(load({}).problems).to.deep.equal([]);
  });
});
