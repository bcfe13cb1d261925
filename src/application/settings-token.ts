/** Injection token of the typed `ProjectTemplate` settings (a value, not a port). */
export const SettingsToken = Symbol('ProjectTemplateSettings');
