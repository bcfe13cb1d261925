/**
 * `npm run generate` (`npm run build` does the same as its first step): writes the settings
 * validator that ajv compiles from src/adapters/config/schema.ts. Run it after changing
 * the schema; `npm test` fails until the generated file matches.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_VALIDATOR_PATH, settingsValidatorSource } from './build/settings-validator-source.js';

const root = fileURLToPath(new URL('..', import.meta.url));
writeFileSync(join(root, GENERATED_VALIDATOR_PATH), settingsValidatorSource());
