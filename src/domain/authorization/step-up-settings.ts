import { error, keyOf, type SettingsProblem } from '../settings/problem.js';
import type { StepUpSettings } from '../settings/settings.js';
import { requireAuthenticationContext, requireAuthenticationMethod, requireRecentAuthentication } from './policies.js';
import type { Requirement } from './policies.js';

const STEP_UP_KEYS = ['MaxAuthenticationAgeSeconds', 'AuthenticationMethods', 'AuthenticationContextClasses'] as const;

/**
 * The startup rules of `Authorization:StepUp` (docs/step-up.md): each section names a
 * registered policy, asks something, with a positive whole age and lists that hold a
 * value each. A mistake here would silently leave a sensitive page without its step-up,
 * so every one is an error, named by its full key.
 */
export function stepUpProblems(
  stepUp: Readonly<Record<string, StepUpSettings>>,
  registeredPolicies: readonly string[],
): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  for (const [policy, section] of Object.entries(stepUp)) {
    const key = (name?: string) => keyOf('Authorization', 'StepUp', policy, ...(name ? [name] : []));
    if (!registeredPolicies.includes(policy)) {
      problems.push(
        error(key(), `names no registered authorization policy (registered: ${registeredPolicies.join(', ')})`),
      );
      continue;
    }
    if (STEP_UP_KEYS.every((name) => section[name] === undefined)) {
      problems.push(error(key(), `asks nothing: set one of ${STEP_UP_KEYS.join(', ')}`));
    }
    const age = section.MaxAuthenticationAgeSeconds;
    if (age !== undefined && (!Number.isInteger(age) || age <= 0)) {
      problems.push(error(key('MaxAuthenticationAgeSeconds'), 'must be a positive whole number of seconds'));
    }
    for (const name of ['AuthenticationMethods', 'AuthenticationContextClasses'] as const) {
      const values = section[name];
      if (values !== undefined && (values.length === 0 || values.some((value) => value.trim() === ''))) {
        problems.push(error(key(name), 'must list at least one value, none of them empty'));
      }
    }
  }
  return problems;
}

/** The requirements one (rule-abiding) section adds to its policy. */
export function stepUpRequirements(section: StepUpSettings): Requirement[] {
  const requirements: Requirement[] = [];
  if (section.MaxAuthenticationAgeSeconds !== undefined) {
    requirements.push(requireRecentAuthentication(section.MaxAuthenticationAgeSeconds));
  }
  if (section.AuthenticationMethods !== undefined) {
    requirements.push(requireAuthenticationMethod(...section.AuthenticationMethods));
  }
  if (section.AuthenticationContextClasses !== undefined) {
    requirements.push(requireAuthenticationContext(...section.AuthenticationContextClasses));
  }
  return requirements;
}

/** The rule of `Authentication:AuthnContextClassMethods`: each class stands for at least one `amr` value. */
export function authnContextMethodProblems(configured: Readonly<Record<string, string>>): SettingsProblem[] {
  return Object.entries(configured)
    .filter(([contextClass, methods]) => contextClass.trim() === '' || methods.trim() === '')
    .map(([contextClass]) =>
      error(
        keyOf('Authentication', 'AuthnContextClassMethods', contextClass),
        'must map a class to at least one amr value (space-separated)',
      ),
    );
}
