import type { ProviderChecks, ProviderDefinition } from '../providers/provider-definition.js';
import { callbackPathOf } from '../providers/provider-definition.js';
import { error, keyOf, warning, type SettingsProblem } from './problem.js';
import type { Environment, ProviderCommonSettings } from './settings.js';
import { httpsRequirementMessage, isLocalPath, parseHttpUrl } from './url-rules.js';

/**
 * The startup rules of one enabled provider: the common ones (a usable Scheme, a
 * DisplayName unless the vendor's name stands in, a local callback path), then the
 * provider's own. Only registered providers reach here: a disabled provider may keep
 * empty or placeholder values.
 */
export function checkProvider(
  definition: ProviderDefinition,
  settings: ProviderCommonSettings,
  environment: Environment,
  section: ProviderSection = providerSection(definition),
): SettingsProblem[] {
  const check = providerChecks(section, environment);
  const problems: SettingsProblem[] = [];
  if (!/^[A-Za-z][A-Za-z0-9._-]*$/.test(settings.Scheme)) {
    problems.push(...check.problem('Scheme', 'must be a non-empty name of letters, digits, ".", "_" or "-"'));
  }
  if (!definition.vendorName) problems.push(...check.required('DisplayName', settings.DisplayName));
  const callbackPath = callbackPathOf(definition, settings);
  if (callbackPath.trim() === '') problems.push(...check.required(definition.callbackKey, callbackPath));
  else if (!isLocalPath(callbackPath)) {
    problems.push(
      ...check.problem(
        definition.callbackKey,
        'must be a path starting with a single "/" (no scheme, host, query or spaces)',
      ),
    );
  }
  return [...problems, ...definition.rules(settings, check)];
}

/** Where a provider's settings sit, for messages: the full key of each, and what to call the section. */
export interface ProviderSection {
  key(name: string): string;
  /** Completes "is required when ...": `the Social3 (GitHub) provider is enabled`. */
  requiredWhen: string;
}

/** How a message names a provider: its key, and the vendor behind a neutral key ("Social3 (GitHub)"). */
function providerLabel(definition: ProviderDefinition): string {
  return definition.vendorName ? `${definition.key} (${definition.vendorName})` : definition.key;
}

/** The deployment's own provider section, `Authentication:Providers:<Key>`. */
export function providerSection(definition: ProviderDefinition): ProviderSection {
  return {
    key: (name) => keyOf('Authentication', 'Providers', definition.key, name),
    requiredWhen: `the ${providerLabel(definition)} provider is enabled`,
  };
}

function providerChecks(section: ProviderSection, environment: Environment): ProviderChecks {
  const key = (name: string) => section.key(name);
  const problem = (name: string, message: string) => [error(key(name), message)];
  const required = (name: string, value: string) =>
    value.trim() === '' ? problem(name, `is required when ${section.requiredWhen}`) : [];
  const optionalHttpsUrl = (name: string, value: string) => {
    const message = value.trim() === '' ? undefined : httpsRequirementMessage(value, environment);
    return message ? problem(name, message) : [];
  };
  return {
    environment,
    key,
    problem,
    warning: (name, message) => [warning(key(name), message)],
    required,
    optionalHttpsUrl,
    httpsUrl: (name, value) => (value.trim() === '' ? required(name, value) : optionalHttpsUrl(name, value)),
    absoluteUrl: (name, value) => {
      if (value.trim() === '') return required(name, value);
      return parseHttpUrl(value) ? [] : problem(name, 'must be an absolute URL');
    },
  };
}
