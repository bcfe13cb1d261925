import type { ProviderChecks } from '../../domain/providers/provider-definition.js';
import type { SettingsProblem } from '../../domain/settings/problem.js';
import { isClientKeyProblem, readClientKey } from './client-key.js';
import type { OpenIdConnectSettings } from './open-id-connect-settings.js';

/**
 * The startup rules of `ClientAuthentication`: a secret for the secret methods; for
 * `private_key_jwt` a readable `ClientKey` (and a `ClientCertificate` that is its own, when
 * given), no secret needed. A credential the chosen method does not use is a warning:
 * it is probably a leftover, and it is still a secret lying in the configuration. No
 * problem quotes a value.
 */
export function clientAuthenticationRules(settings: OpenIdConnectSettings, check: ProviderChecks): SettingsProblem[] {
  const method = settings.ClientAuthentication;
  const hasSecret = settings.ClientSecret.trim() !== '';
  const hasKey = settings.ClientKey.trim() !== '';
  const hasCertificate = settings.ClientCertificate.trim() !== '';
  if (method !== 'private_key_jwt') {
    return [
      ...check.required('ClientSecret', settings.ClientSecret),
      ...(hasKey || hasCertificate
        ? check.warning(
            hasKey ? 'ClientKey' : 'ClientCertificate',
            `is set but not used: ClientAuthentication is ${method} (set it to private_key_jwt to sign in with the key, or remove the key)`,
          )
        : []),
      ...(settings.ClientAssertionAudience === 'issuer'
        ? []
        : check.warning('ClientAssertionAudience', 'is used by private_key_jwt only')),
    ];
  }
  const problems: SettingsProblem[] = hasSecret
    ? check.warning('ClientSecret', 'is set but not used with private_key_jwt: remove it from the configuration')
    : [];
  if (!hasKey)
    return [...problems, ...check.problem('ClientKey', 'is required when ClientAuthentication is private_key_jwt')];
  const key = readClientKey(settings.ClientKey, settings.ClientCertificate);
  return isClientKeyProblem(key) ? [...problems, ...check.problem(key.setting, key.reason)] : problems;
}
