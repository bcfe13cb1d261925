/** Node's deprecation of `url.parse()`, a run-time warning from Node 24 on. */
const URL_PARSE_DEPRECATION = 'DEP0169';

/** What Node 22 says, as an ExperimentalWarning, when `node:sqlite` is first loaded. */
const SQLITE_EXPERIMENTAL = 'SQLite is an experimental feature';

/**
 * samlify 2.13 reads whether the identity provider's HTTP-Redirect endpoint has a query
 * with the legacy `url.parse()`, which Node 24 deprecates at run time: one DeprecationWarning
 * on stderr at the first SAML sign-in of every process, about a call Gatehouse neither
 * makes nor can change (the endpoint itself comes from metadata Gatehouse has checked with
 * the WHATWG URL parser). The process entry point drops that one deprecation code; every
 * other warning is printed as before.
 */
export function dropUrlParseDeprecation(): void {
  dropWarnings((warning) => warning.code === URL_PARSE_DEPRECATION);
}

/**
 * Node 22 marks `node:sqlite` experimental and says so on stderr when the embedded directory
 * store first loads it: a line at every start of an instance syncing directories without a
 * database, about a module whose small part Gatehouse uses (a database, statements, a
 * function) is the same on Node 22 and 24 and is tested on both (Node 24, where it is a
 * release candidate, prints nothing). The process entry point drops that one warning; every
 * other ExperimentalWarning is printed as before.
 */
export function dropSqliteExperimentalWarning(): void {
  dropWarnings((warning) => warning.type === 'ExperimentalWarning' && warning.message.startsWith(SQLITE_EXPERIMENTAL));
}

interface Warning {
  message: string;
  type: string | undefined;
  code: unknown;
}

/** Wraps `process.emitWarning` so that the warnings `drops` names are not emitted, in either of its calling forms. */
function dropWarnings(drops: (warning: Warning) => boolean): void {
  const emit = process.emitWarning.bind(process);
  process.emitWarning = function emitWarning(warning: string | Error, ...rest: unknown[]): void {
    const [typeOrOptions, code] = rest;
    const options = typeof typeOrOptions === 'object' && typeOrOptions !== null ? typeOrOptions : undefined;
    const type =
      typeof typeOrOptions === 'string'
        ? typeOrOptions
        : options && 'type' in options && typeof options.type === 'string'
          ? options.type
          : warning instanceof Error
            ? warning.name
            : undefined;
    const described: Warning = {
      message: typeof warning === 'string' ? warning : warning.message,
      type,
      code: options && 'code' in options ? options.code : code,
    };
    if (drops(described)) return;
    (emit as (...args: unknown[]) => void)(warning, ...rest);
  } as typeof process.emitWarning;
}
