/** One thing wrong with the configuration, naming the full key and never a value. */
export interface SettingsProblem {
  /** Full key, `:`-separated: `ProjectTemplate:Authentication:Providers:OpenIdConnect:ClientSecret`. */
  key: string;
  message: string;
  severity: 'error' | 'warning';
}

export const ROOT = 'ProjectTemplate';

export function keyOf(...segments: string[]): string {
  return [ROOT, ...segments].join(':');
}

export function error(key: string, message: string): SettingsProblem {
  return { key, message, severity: 'error' };
}

export function warning(key: string, message: string): SettingsProblem {
  return { key, message, severity: 'warning' };
}

/** "ProjectTemplate:A:B" -> "ProjectTemplate__A__B", the environment-variable spelling. */
export function envName(key: string): string {
  return key.split(':').join('__');
}
