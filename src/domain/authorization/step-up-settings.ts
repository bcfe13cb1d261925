import { error, keyOf, type SettingsProblem } from '../settings/problem.js';
import type { StepUpSettings } from '../settings/settings.js';
import { requireAuthenticationContext, requireAuthenticationMethod, requireRecentAuthentication } from './policies.js';
import type { Requirement } from './policies.js';

const STEP_UP_KEYS = ['MaxAuthenticationAgeSeconds', 'AuthenticationMethods', 'AuthenticationContextClasses'] as const;

/** One `Authorization:StepUp` section: its name as configured, and the policy it strengthens. */
export interface StepUpSection {
  /** The section's name (`AdminPages`, or the policy name itself). */
  name: string;
  /** `Policy` when set, else the section's name. */
  policy: string;
  settings: StepUpSettings;
}

/**
 * The configured sections, each with the policy it names: its `Policy` key when set (the
 * spelling for environment variables, whose names cannot hold the dots of a policy name
 * through /bin/sh), else its own name (`StepUp:application.Role.Administrator` in a file).
 */
export function stepUpSections(stepUp: Readonly<Record<string, StepUpSettings>>): StepUpSection[] {
  return Object.entries(stepUp).map(([name, settings]) => ({ name, policy: settings.Policy ?? name, settings }));
}

/**
 * The startup rules of `Authorization:StepUp` (docs/step-up.md): each section names a
 * registered policy, one section per policy, asks something, with a positive whole age
 * and lists that hold a value each. A mistake here would silently leave a sensitive page
 * without its step-up, so every one is an error, named by its full key.
 */
export function stepUpProblems(
  stepUp: Readonly<Record<string, StepUpSettings>>,
  registeredPolicies: readonly string[],
): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const sectionOf = new Map<string, string>();
  for (const { name, policy, settings: section } of stepUpSections(stepUp)) {
    const key = (child?: string) => keyOf('Authorization', 'StepUp', name, ...(child ? [child] : []));
    const policyKey = section.Policy === undefined ? key() : key('Policy');
    if (!registeredPolicies.includes(policy)) {
      problems.push(error(policyKey, unknownPolicy(name, section.Policy, registeredPolicies)));
      continue;
    }
    const earlier = sectionOf.get(policy);
    if (earlier !== undefined) {
      problems.push(
        error(
          policyKey,
          `names the policy ${policy}, as ${keyOf('Authorization', 'StepUp', earlier)} does: keep one section per policy`,
        ),
      );
    }
    sectionOf.set(policy, name);
    if (STEP_UP_KEYS.every((child) => section[child] === undefined)) {
      problems.push(error(key(), `asks nothing: set one of ${STEP_UP_KEYS.join(', ')}`));
    }
    const age = section.MaxAuthenticationAgeSeconds;
    if (age !== undefined && (!Number.isInteger(age) || age <= 0)) {
      problems.push(error(key('MaxAuthenticationAgeSeconds'), 'must be a positive whole number of seconds'));
    }
    for (const child of ['AuthenticationMethods', 'AuthenticationContextClasses'] as const) {
      const values = section[child];
      if (values !== undefined && (values.length === 0 || values.some((value) => value.trim() === ''))) {
        problems.push(error(key(child), 'must list at least one value, none of them empty'));
      }
    }
  }
  return problems;
}

/**
 * Why a section names no policy, with the way out: a section name with `_` where the
 * policy has dots is the environment-variable spelling mistaken for the name, and is
 * never guessed at (two policies could differ only there): it needs its `Policy` key.
 */
function unknownPolicy(name: string, policy: string | undefined, registered: readonly string[]): string {
  const listed = `(registered: ${registered.join(', ')})`;
  if (policy !== undefined) return `names no registered authorization policy ${listed}`;
  const meant = registered.find((candidate) => candidate.replace(/\./g, '_').toLowerCase() === name.toLowerCase());
  return meant === undefined
    ? `names no registered authorization policy ${listed}; a section named otherwise names its policy in its Policy key`
    : `names no registered authorization policy: to strengthen ${meant}, set ${keyOf('Authorization', 'StepUp', name, 'Policy')} to ${meant}`;
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
