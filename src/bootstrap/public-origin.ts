import { registeredProviders } from '../domain/settings/check-settings.js';
import { error, type SettingsProblem } from '../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings } from '../domain/settings/settings.js';

/**
 * Absolute URLs come from `Hosting:PublicOrigin`; outside production it defaults to the
 * listening address. Never from the Host header.
 */
export function resolvePublicOrigin(
  settings: ProjectTemplateSettings,
  environment: Environment,
  listen: { port: number; host: string },
): { value: string; problem?: SettingsProblem } {
  const configured = settings.Hosting.PublicOrigin.replace(/\/$/, '');
  if (configured !== '' || environment === 'production') return { value: configured || 'https://invalid.example' };
  const host =
    listen.host === '0.0.0.0' || listen.host === '::'
      ? 'localhost'
      : listen.host.includes(':')
        ? `[${listen.host}]`
        : listen.host;
  const value = `http://${host}:${listen.port}`;
  if (listen.port === 0 && registeredProviders(settings).length > 0) {
    return {
      value,
      problem: error(
        'ProjectTemplate:Hosting:PublicOrigin',
        'is required when PORT is 0 and a provider is enabled: redirect URIs need a known origin',
      ),
    };
  }
  return { value };
}
