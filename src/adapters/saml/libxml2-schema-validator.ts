import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ParseOption,
  XmlDocument,
  xmlCleanupInputProvider,
  XmlParseError,
  xmlRegisterInputProvider,
  XmlValidateError,
  XsdValidator,
  type XmlInputProvider,
} from 'libxml2-wasm';
import { GatehouseError } from '../../domain/errors.js';
import { LoadedOnce } from '../loaded-once.js';
import { samlRefusal } from './saml-refusals.js';
import { declaresDocumentType } from './saml-xml.js';

/** The schema every message is checked against; it imports the others of its folder by name. */
const PROTOCOL_SCHEMA = 'saml-schema-protocol-2.0.xsd';

/**
 * How a message is parsed: no network, no external DTD or entity loaded, no entity
 * substituted, no XInclude (each of those is off unless asked for; NONET and NO_XXE say so
 * twice). The text is UTF-8 whatever its declaration says: it is encoded here.
 */
const MESSAGE_PARSING = { option: ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE, encoding: 'UTF-8' };

const unavailable = () =>
  new GatehouseError('idp.validator_unavailable', 'The sign-in response could not be checked. Try again later.', {
    safe: true,
  });

interface CompiledSchema {
  validator: XsdValidator;
  /**
   * Kept as long as the validator: libxml2 keeps the documents it parses for a schema (the
   * imports) until the schema is freed, and leaves this one, handed to it, to us.
   */
  document: XmlDocument;
}

/**
 * samlify's schema validator: libxml2 compiled to WebAssembly (`libxml2-wasm`), in this
 * process, no system program. The SAML 2.0 protocol schema is compiled once, at its first
 * use (installSamlSchemaValidation makes that the start), from the files of `schemaDir`
 * read into memory; a failed compile is tried again at the next use. A message with a DTD
 * is refused before libxml2 sees it (`idp.response_malformed`, as parseSamlXml answers);
 * libxml2 parses the others with no network and no external entity, and can load nothing
 * at all while it does (see `compileSchema`). Each message's document is freed as soon as
 * it is checked, so the WebAssembly heap stays flat. A valid message resolves; a
 * schema-invalid or not well-formed one is `idp.schema_invalid`; anything else (the schema
 * does not compile, libxml2 fails) is `idp.validator_unavailable`, a 503, never a pass.
 * libxml2's diagnostics quote the message: they are dropped unread, and nothing is printed.
 */
export class Libxml2SchemaValidator {
  readonly #schema: LoadedOnce<CompiledSchema>;

  /** @param schemaDir the folder holding saml-schema-protocol-2.0.xsd and the schemas it imports */
  constructor(schemaDir: string) {
    this.#schema = new LoadedOnce(() => compileSchema(schemaDir));
  }

  /** Compiles the schema now, so that a missing or broken schema folder is a startup problem. */
  async compile(): Promise<void> {
    await this.#schema.get();
  }

  /** samlify's `validate` callback: resolves for a schema-valid message, rejects with a GatehouseError otherwise. */
  readonly validate = async (xml: string): Promise<string> => {
    if (declaresDocumentType(xml)) throw samlRefusal('idp.response_malformed');
    let schema: CompiledSchema;
    try {
      schema = await this.#schema.get();
    } catch {
      throw unavailable();
    }
    if (!isValid(schema.validator, xml)) throw samlRefusal('idp.schema_invalid');
    return 'valid';
  };
}

/** libxml2's answer for one message; a failure of libxml2 itself is thrown as `idp.validator_unavailable`. */
function isValid(validator: XsdValidator, xml: string): boolean {
  let document: XmlDocument | undefined;
  try {
    document = XmlDocument.fromBuffer(Buffer.from(xml, 'utf8'), MESSAGE_PARSING);
    validator.validate(document);
    return true;
  } catch (error) {
    // Not well-formed, or not schema-valid. Their messages quote the document: never kept.
    if (error instanceof XmlParseError || error instanceof XmlValidateError) return false;
    throw unavailable();
  } finally {
    document?.dispose();
  }
}

/**
 * Reads the schema files of `schemaDir` into memory and compiles the protocol schema. The
 * imports are served to libxml2 from that memory by name, and by an input provider that is
 * libxml2's only one: libxml2's input callbacks are process-wide, so every earlier one (its
 * own defaults, which would read the WebAssembly module's virtual file system, or an
 * earlier compile's provider) is removed first. The provider claims every name libxml2
 * asks for and opens one only while this compile runs, so nothing is ever loaded from a
 * file, the network, or a name a message gives (a DOCTYPE's external entity, an XInclude,
 * an xsi:schemaLocation): such a load fails.
 */
async function compileSchema(schemaDir: string): Promise<CompiledSchema> {
  const files = new Map<string, Uint8Array>();
  for (const name of await readdir(schemaDir)) {
    if (name.endsWith('.xsd')) files.set(name, await readFile(join(schemaDir, name)));
  }
  const protocol = files.get(PROTOCOL_SCHEMA);
  if (!protocol) throw new Error(`${PROTOCOL_SCHEMA} is missing`);

  let compiling = true;
  try {
    xmlCleanupInputProvider();
    if (!xmlRegisterInputProvider(servedFromMemory(files, () => compiling))) {
      throw new Error('libxml2 took no input provider');
    }
    const document = XmlDocument.fromBuffer(protocol, { url: PROTOCOL_SCHEMA });
    try {
      return { validator: XsdValidator.fromDoc(document), document };
    } catch (error) {
      document.dispose();
      throw error;
    }
  } finally {
    compiling = false;
  }
}

/** An input provider serving `files` by name while `serving` says so, and nothing otherwise. */
function servedFromMemory(files: ReadonlyMap<string, Uint8Array>, serving: () => boolean): XmlInputProvider {
  const reading = new Map<number, { bytes: Uint8Array; offset: number }>();
  let nextHandle = 1;
  return {
    // Claimed, so that libxml2 asks no other loader.
    match: () => true,
    open: (name) => {
      const bytes = serving() ? files.get(name) : undefined;
      if (bytes === undefined) return undefined;
      const handle = nextHandle++;
      reading.set(handle, { bytes, offset: 0 });
      return handle;
    },
    read: (handle, buffer) => {
      const file = reading.get(handle);
      if (!file) return -1;
      const chunk = file.bytes.subarray(file.offset, file.offset + buffer.byteLength);
      buffer.set(chunk);
      file.offset += chunk.byteLength;
      return chunk.byteLength;
    },
    close: (handle) => reading.delete(handle),
  };
}
