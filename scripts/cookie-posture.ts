import { builtInProviders } from '../src/bootstrap/provider-catalogue.js';
import { defaultSettings } from '../src/domain/settings/default-settings.js';

const defaults = defaultSettings(builtInProviders);

/**
 * Gatehouse's built-in authentication posture (docs: Posture, 2-3; the
 * `--authProvider cookies` choice): cookie authentication on (the signed-in session's
 * cookie, sign-in through a provider), every external provider off, no connections
 * folder, the authenticated fallback on, the administration API off. Spelled as environment
 * variables, which win over `config/appsettings.json`: the demo and the test suites that
 * exercise sign-in run with it whatever posture a project committed (a project generated
 * with `--authProvider none`, one whose provider still waits for its keys, one reading
 * connections from a folder, one with `--database postgres`). Suites that check the project's own posture
 * start it as configured instead.
 */
export const COOKIE_POSTURE: Readonly<Record<string, string>> = {
  ProjectTemplate__Authentication__Enabled: String(defaults.Authentication.Enabled),
  ProjectTemplate__Authentication__DefaultChallengeScheme: defaults.Authentication.DefaultChallengeScheme,
  ProjectTemplate__Authentication__ConnectionsDirectory: defaults.Authentication.ConnectionsDirectory,
  ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault: String(
    defaults.Authorization.RequireAuthenticatedUserByDefault,
  ),
  // `--database postgres` turns the API on; without a database or a folder it has nowhere to write.
  ProjectTemplate__Administration__Enabled: String(defaults.Administration.Enabled),
  ...Object.fromEntries(
    Object.entries(defaults.Authentication.Providers).map(([key, provider]) => [
      `ProjectTemplate__Authentication__Providers__${key}__Enabled`,
      String(provider.Enabled),
    ]),
  ),
};
