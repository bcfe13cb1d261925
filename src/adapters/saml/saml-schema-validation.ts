import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LoadedOnce } from '../loaded-once.js';
import { GatehouseError } from '../../domain/errors.js';

/** The installed validator's check of one message: resolves when schema-valid, rejects with a GatehouseError otherwise. */
export type SchemaCheck = (xml: string) => Promise<unknown>;

let installed: LoadedOnce<SchemaCheck> | undefined;

/**
 * Gives samlify its schema validator: process-global state (`setSchemaValidator`), so it
 * is set once per process, while the composition root builds a Saml2 adapter (the
 * record's factory calls it), never as a side effect of importing a module. The validator is libxml2 in
 * WebAssembly, in this process, checking against the SAML 2.0 schemas of
 * `<root>/schemas/saml2`, compiled here once: a missing or broken schema folder refuses the
 * provider at startup (a problem naming `Saml2:Enabled`), not at the first sign-in.
 */
export function installSamlSchemaValidation(rootDir: string): Promise<SchemaCheck> {
  installed ??= new LoadedOnce(() => install(rootDir));
  return installed.get();
}

async function install(rootDir: string): Promise<SchemaCheck> {
  const schemaDir = join(rootDir, 'schemas', 'saml2');
  if (!existsSync(join(schemaDir, 'saml-schema-protocol-2.0.xsd'))) {
    throw new GatehouseError(
      'config.invalid',
      'SAML sign-in needs the SAML schemas in schemas/saml2 of the project folder: deploy that folder with the application',
    );
  }
  const [{ useSchemaValidator }, { Libxml2SchemaValidator }] = await Promise.all([
    import('./samlify-entities.js'),
    import('./libxml2-schema-validator.js'),
  ]);
  const validator = new Libxml2SchemaValidator(schemaDir);
  try {
    await validator.compile();
  } catch (error) {
    throw new GatehouseError(
      'config.invalid',
      'SAML sign-in could not compile the SAML schemas in schemas/saml2: deploy that folder as shipped with the application',
      { cause: error },
    );
  }
  useSchemaValidator(validator.validate);
  return validator.validate;
}
