import { GENERATOR_PACKAGE_FIELDS, GENERATOR_SCRIPTS } from './template-manifest.mjs';

/** A new application starts its own version history. */
export const FIRST_VERSION = '0.1.0';

/**
 * The new project's package.json: its name, its first version, a description saying where
 * it came from, and without what serves only the generator (template-manifest.mjs) or
 * names Gatehouse itself (`displayName`: the project's pages and build then show its
 * package name, bootstrap/application-identity.ts). Key order is kept; JSON.stringify's
 * layout is the one Prettier and npm use for package.json.
 * @param {string} text the template's package.json
 * @param {{ name: string, description: string }} project
 * @returns {string}
 */
export function rewritePackage(text, { name, description }) {
  /** @type {Record<string, unknown>} */
  const manifest = JSON.parse(text);
  manifest.name = name;
  manifest.version = FIRST_VERSION;
  manifest.description = description;
  delete manifest.displayName;
  for (const field of GENERATOR_PACKAGE_FIELDS) delete manifest[field];
  const scripts = manifest.scripts;
  if (typeof scripts === 'object' && scripts !== null) {
    for (const script of GENERATOR_SCRIPTS) delete (/** @type {Record<string, unknown>} */ (scripts)[script]);
  }
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * The new project's package-lock.json: the root package renamed and renumbered like
 * package.json, and without the generator's bin, so that `npm ci` finds the two in step.
 * @param {string} text the template's package-lock.json
 * @param {{ name: string }} project
 * @returns {string}
 */
export function rewriteLockfile(text, { name }) {
  /** @type {{ name?: string, version?: string, packages?: Record<string, Record<string, unknown>> }} */
  const lockfile = JSON.parse(text);
  lockfile.name = name;
  lockfile.version = FIRST_VERSION;
  const root = lockfile.packages?.[''];
  if (root) {
    root.name = name;
    root.version = FIRST_VERSION;
    for (const field of GENERATOR_PACKAGE_FIELDS) delete root[field];
  }
  return `${JSON.stringify(lockfile, null, 2)}\n`;
}

/**
 * The template's name and version, for the new project's description and README.
 * @param {string} text the template's package.json
 */
export function templateIdentity(text) {
  const manifest = JSON.parse(text);
  return { name: String(manifest.name), version: String(manifest.version) };
}
