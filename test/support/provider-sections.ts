import type { social2 } from '../../src/adapters/amazon/social2.js';
import type { social3 } from '../../src/adapters/github/social3.js';
import type { social1 } from '../../src/adapters/microsoft/social1.js';
import type { openIdConnect } from '../../src/adapters/oidc/open-id-connect.js';
import type { ProviderRecord } from '../../src/adapters/provider-record.js';
import type { saml2 } from '../../src/adapters/saml/saml2.js';
import type { ProjectTemplateSettings } from '../../src/domain/settings/settings.js';

type SettingsOf<R> = R extends ProviderRecord<infer S> ? S : never;

/** The built-in providers' sections of a settings tree, each typed by its record, for tests that set one provider's keys. */
export interface BuiltInSections {
  OpenIdConnect: SettingsOf<typeof openIdConnect>;
  Saml2: SettingsOf<typeof saml2>;
  Social1: SettingsOf<typeof social1>;
  Social2: SettingsOf<typeof social2>;
  Social3: SettingsOf<typeof social3>;
}

export function sectionsOf(settings: ProjectTemplateSettings): BuiltInSections {
  return settings.Authentication.Providers as unknown as BuiltInSections;
}
