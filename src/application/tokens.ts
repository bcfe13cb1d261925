/** Injection tokens for values that are not ports: the typed settings and the environment. */
export const SettingsToken = Symbol('ProjectTemplateSettings');
export const EnvironmentToken = Symbol('Environment');
