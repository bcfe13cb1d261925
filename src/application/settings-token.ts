/** Injection token of the typed `ProjectTemplate` settings (a value, not a port). */
export const SettingsToken = Symbol('ProjectTemplateSettings');

/** Injection token of the declarations of the providers this build ships (`ProviderDefinition[]`). */
export const ProviderDefinitionsToken = Symbol('ProviderDefinition[]');
