import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isLeftOut, PACKED_SEPARATELY, PACKED_SEPARATELY_DIR, REQUIRED } from './template-manifest.mjs';

/**
 * @typedef {object} TemplateFile
 * @property {string} path relative to the template's root, "/"-separated
 * @property {string} source absolute path it is read from
 * @property {number} mode its permission bits (`.ci/run` stays executable)
 */

/**
 * Every file of the template that a new project gets, sorted: the regular files under
 * `root` that the manifest does not leave out, plus the files npm pack ships separately
 * when `root` is an installed tarball. Left-out folders are not even entered.
 * @param {string} root
 * @returns {TemplateFile[]}
 * @throws {Error} naming the missing files when the template lacks one a project needs
 */
export function listTemplateFiles(root) {
  /** @type {TemplateFile[]} */
  const files = [];
  /** @param {string} folder relative, "" for the root */
  const walk = (folder) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (isLeftOut(path)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push(fileAt(join(root, path), path));
    }
  };
  walk('');
  for (const path of PACKED_SEPARATELY) {
    const packed = join(root, packedSeparatelyName(path));
    if (!files.some((file) => file.path === path) && existsSync(packed)) files.push(fileAt(packed, path));
  }
  const missing = REQUIRED.filter((path) => !files.some((file) => file.path === path));
  if (missing.length > 0) throw new Error(`the template at ${root} has no ${missing.join(', ')}`);
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Where a file that npm pack ships separately lives in the packed template, without its
 * leading dot: npm reads a packed `.gitignore` as ignore rules and renames it on install.
 * @param {string} path
 */
export function packedSeparatelyName(path) {
  return `${PACKED_SEPARATELY_DIR}/${path.replace(/^\./, '')}`;
}

/** @param {string} source @param {string} path @returns {TemplateFile} */
function fileAt(source, path) {
  return { path, source, mode: statSync(source).mode & 0o777 };
}

/** @param {TemplateFile[]} files @param {string} path */
export function readTemplateText(files, path) {
  const file = files.find((candidate) => candidate.path === path);
  if (!file) throw new Error(`the template has no ${path}`);
  return readFileSync(file.source, 'utf8');
}
