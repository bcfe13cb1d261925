/** Injection token of the typed `ProjectTemplate` settings (a value, not a port). */
export const SettingsToken = Symbol('ProjectTemplateSettings');

/** Injection token of the declarations of the providers this build ships (`ProviderDefinition[]`). */
export const ProviderDefinitionsToken = Symbol('ProviderDefinition[]');

/** Injection token of the application's named authorization policies (`PolicyRegistry`, built in src/bootstrap/policies.ts). */
export const PoliciesToken = Symbol('PolicyRegistry');
