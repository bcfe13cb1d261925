import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LoadedOnce } from '../loaded-once.js';
import { GatehouseError } from '../../domain/errors.js';

let installed: LoadedOnce<void> | undefined;

/**
 * Gives samlify its schema validator: process-global state (`setSchemaValidator`), so it
 * is set once per process, while the composition root builds a Saml2 adapter (the
 * record's factory calls it), never as a side effect of importing a module. The validator runs Debian's
 * `xmllint` against the SAML 2.0 schemas in `<root>/schemas/saml2`; without xmllint the
 * provider is refused at startup (a problem naming `Saml2:Enabled`), not at the first
 * sign-in.
 */
export function installSamlSchemaValidation(rootDir: string): Promise<void> {
  installed ??= new LoadedOnce(() => install(rootDir));
  return installed.get();
}

async function install(rootDir: string): Promise<void> {
  const [{ useSchemaValidator }, { XmllintSchemaValidator, isXmllintInstalled }] = await Promise.all([
    import('./samlify-entities.js'),
    import('./xmllint-schema-validator.js'),
  ]);
  if (!isXmllintInstalled()) {
    throw new GatehouseError(
      'config.invalid',
      'SAML sign-in needs the xmllint program to check every response against the SAML schema: install it (Debian and Ubuntu: apt-get install libxml2-utils) or disable Saml2',
    );
  }
  const schemaDir = join(rootDir, 'schemas', 'saml2');
  if (!existsSync(join(schemaDir, 'saml-schema-protocol-2.0.xsd'))) {
    throw new GatehouseError(
      'config.invalid',
      'SAML sign-in needs the SAML schemas in schemas/saml2 of the project folder: deploy that folder with the application',
    );
  }
  const validator = new XmllintSchemaValidator({ schemaDir });
  useSchemaValidator(validator.validate);
}
