import { postureSettings } from './auth-choices.mjs';
import { databaseSettings } from './database-choice.mjs';
import { setJsonValues, setOrAddJsonValues } from './json-edit.mjs';

/**
 * The new project's config/appsettings.json: the template's, with the choice's posture
 * written under `ProjectTemplate` (and the --database choice's settings, added where the
 * template's file leaves them to the defaults) and every other character kept.
 * @param {string} text the template's config/appsettings.json
 * @param {import('./auth-choices.mjs').AuthChoice} choice
 * @param {string} [database] the --database value
 * @returns {string}
 */
export function rewriteAppsettings(text, choice, database = 'none') {
  const settings = postureSettings(choice, (provider) => providerStarter(text, provider).scheme);
  const underSection = (/** @type {{ path: string[], value: boolean | string }} */ { path, value }) => ({
    path: ['ProjectTemplate', ...path],
    value,
  });
  // The posture's keys are all in the template's file: one missing means it changed shape.
  const posture = setJsonValues(text, settings.map(underSection));
  const added = databaseSettings(database);
  return added.length === 0 ? posture : setOrAddJsonValues(posture, added.map(underSection));
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
