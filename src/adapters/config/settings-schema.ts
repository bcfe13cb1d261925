import type { ValidateFunction } from 'ajv';
import type { ProviderDefinition } from '../../domain/providers/provider-definition.js';
import { projectTemplateSchema, secretKeyPaths } from './schema.js';
import { schemaText as generatedSchemaText, validate as generatedValidate } from './settings-validator.generated.js';

/** The configuration's schema for one set of providers, with its compiled validator and its secret keys. */
export interface SettingsSchema {
  providers: readonly ProviderDefinition[];
  json: Record<string, unknown>;
  /** Types a merged configuration tree in place (coercing environment strings) and lists what is wrong. */
  validate: ValidateFunction;
  /** Paths (below ProjectTemplate) of every key the schema marks secret. */
  secretKeyPaths: string[][];
}

/**
 * The schema of these providers' configuration. For the providers this build ships, ajv
 * compiled the validator at build time (`npm run generate`): a start neither loads ajv nor
 * compiles the schema (about 75 ms of a cold start, npm run bench). Any other set (an
 * application that passes its own provider records) is compiled here, once, at start.
 */
export async function settingsSchema(providers: readonly ProviderDefinition[]): Promise<SettingsSchema> {
  const json = projectTemplateSchema(providers);
  const validate =
    JSON.stringify(json) === generatedSchemaText ? (generatedValidate as ValidateFunction) : await compileAtStart(json);
  return { providers, json, validate, secretKeyPaths: secretKeyPaths(json) };
}

async function compileAtStart(json: Record<string, unknown>): Promise<ValidateFunction> {
  const { Ajv } = await import('ajv');
  // The same options as the build's: every problem at once, types coerced from environment strings, strict schema.
  const ajv = new Ajv({ allErrors: true, coerceTypes: true, strict: true });
  // `secret` only declares which keys hold secrets; it validates nothing.
  ajv.addKeyword({ keyword: 'secret', schemaType: 'boolean' });
  return ajv.compile(json);
}
