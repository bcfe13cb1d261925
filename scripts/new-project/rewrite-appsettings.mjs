import { postureSettings } from './auth-choices.mjs';
import { setJsonValues } from './json-edit.mjs';

/**
 * The new project's config/appsettings.json: the template's, with the choice's posture
 * written under `ProjectTemplate` and every other character kept.
 * @param {string} text the template's config/appsettings.json
 * @param {import('./auth-choices.mjs').AuthChoice} choice
 * @returns {string}
 */
export function rewriteAppsettings(text, choice) {
  const settings = postureSettings(choice, (provider) => providerStarter(text, provider).scheme);
  return setJsonValues(
    text,
    settings.map(({ path, value }) => ({ path: ['ProjectTemplate', ...path], value })),
  );
}

/**
 * A provider's starter scheme, display name and callback path, from the template's
 * config/appsettings.json (Gatehouse's defaults stand in for a display name it leaves out).
 * @param {string} appsettings
 * @param {import('./auth-choices.mjs').ProviderKey} provider
 */
export function providerStarter(appsettings, provider) {
  const section = JSON.parse(appsettings)?.ProjectTemplate?.Authentication?.Providers?.[provider] ?? {};
  const scheme = typeof section.Scheme === 'string' ? section.Scheme : provider;
  const callback = provider === 'Saml2' ? section.ModulePath : section.CallbackPath;
  return {
    scheme,
    displayName: typeof section.DisplayName === 'string' ? section.DisplayName : scheme,
    callbackPath: typeof callback === 'string' ? callback : '',
  };
}
