/**
 * What `npm run new` leaves out of the template and what it rewrites: the one list. The
 * template is this repository itself; every other regular file is copied as it is
 * (symbolic links and other special files are not). docs/new-application.md ("What is
 * copied, left out and rewritten") points here.
 */

/**
 * Never copied. A pattern without "/" matches a file or folder of that name anywhere (a
 * folder with everything in it), like a .gitignore line; one with "/" is a path from the
 * template's root, a folder when it ends with "/". `*` matches within one name.
 * A test keeps this list covering every line of .gitignore.
 * @type {ReadonlyArray<{ pattern: string, except?: string[], why: string }>}
 */
export const LEFT_OUT = [
  { pattern: '.git', why: "the template's version control" },
  { pattern: 'node_modules', why: 'installed packages: the new project installs its own' },
  { pattern: 'dist', why: 'build output' },
  { pattern: 'coverage', why: 'test output' },
  { pattern: 'test-artifacts', why: 'test output (screenshots, the test bundle)' },
  { pattern: 'bench-results', why: 'benchmark results' },
  { pattern: '*.cpuprofile', why: 'CPU profiles' },
  { pattern: '*.log', why: 'logs' },
  { pattern: '.env', why: 'local settings and secrets' },
  { pattern: '.env.*', except: ['.env.example'], why: 'local settings and secrets' },
  { pattern: '.npmrc', why: 'may hold registry tokens' },
  { pattern: '*.pem', why: 'certificates and private keys' },
  { pattern: '*.key', why: 'private keys' },
  { pattern: '*.p12', why: 'certificates and private keys' },
  { pattern: '*.pfx', why: 'certificates and private keys' },
  {
    pattern: 'config/appsettings.*.json',
    why: 'per-environment settings belong to the deployment they were written for; config/appsettings.json is the one shipped',
  },
  { pattern: '*.tgz', why: 'packed tarballs' },
  { pattern: 'data/', why: "the embedded directory store's file (Directory:EmbeddedFile): a deployment's people" },
  { pattern: '.DS_Store', why: 'operating-system litter' },
  { pattern: 'Thumbs.db', why: 'operating-system litter' },
  { pattern: '*.swp', why: 'editor litter' },
  { pattern: '*~', why: 'editor litter' },
  // The generator makes projects; a project made from it does not make projects.
  { pattern: 'scripts/new-project.mjs', why: 'the generator' },
  { pattern: 'scripts/new-project/', why: 'the generator' },
  { pattern: 'docs/new-application.md', why: "the generator's page" },
  { pattern: 'test/unit/new-project/', why: "the generator's tests" },
  { pattern: 'test/integration/new-project/', why: "the generator's tests" },
  { pattern: 'test/new-project/', why: "the generator's slow tests" },
  { pattern: '.mocharc.new-project.json', why: "the generator's slow tests" },
];

/** Rewritten on the way, each by the function named (its own file); everything else is copied byte for byte. */
export const REWRITTEN = {
  'package.json':
    'rewritePackage: name, version 0.1.0, a description naming the template and the choice, and the fields below removed',
  'package-lock.json': 'rewriteLockfile: the same name and version, the bin removed',
  'config/appsettings.json':
    "rewriteAppsettings: the --authProvider choice's posture (auth-choices.mjs), with --database postgres the administration API and migrations on (database-choice.mjs), every other character kept",
  '.env.example': 'rewriteEnvExample, with --database postgres only: commented lines for the database URL and the keys',
  'README.md': 'rewriteReadme: the parts below',
};

/** package.json fields and scripts that serve only the generator and the packing of the template. */
export const GENERATOR_PACKAGE_FIELDS = ['bin', 'files'];
export const GENERATOR_SCRIPTS = ['new', 'test:new-project', 'prepack', 'postpack'];

/** README.md: the title and introduction (everything before this heading) are replaced by the new project's own. */
export const README_FIRST_KEPT_HEADING = '## Quick start';
/** README.md: the section about the generator, removed. */
export const README_GENERATOR_SECTION = '## Start a new application';
/** README.md: rows of the commands table that name the generator's commands, removed. */
export const README_GENERATOR_COMMANDS = ['`npm run new', '`npm run test:new-project`'];
/** README.md: the paragraph on the default posture, replaced by the choice's own. */
export const README_DEFAULT_POSTURE_PARAGRAPH = 'With no configuration at all it starts:';

/**
 * Files `npm pack` never ships (it drops package-lock.json, and an installed package has
 * its .gitignore renamed), which a project needs. `npm run prepack` copies them into this
 * folder, which package.json `files` ships; from an installed tarball the generator reads
 * them there. `dist/` itself is left out of every project.
 */
export const PACKED_SEPARATELY_DIR = 'dist/template-extras';
export const PACKED_SEPARATELY = ['.gitignore', 'package-lock.json'];

/** Files a project cannot do without: the generator refuses a template that lacks one. */
export const REQUIRED = ['package.json', 'package-lock.json', '.gitignore', 'README.md', 'config/appsettings.json'];

/**
 * Whether `relativePath` (with "/" separators) is left out.
 * @param {string} relativePath
 */
export function isLeftOut(relativePath) {
  const names = relativePath.split('/');
  return LEFT_OUT.some(({ pattern, except = [] }) => {
    if (except.includes(names[names.length - 1] ?? '')) return false;
    if (!pattern.includes('/')) return names.some((name) => matchesName(name, pattern));
    const segments = pattern.replace(/\/$/, '').split('/');
    const isFolder = pattern.endsWith('/');
    if (isFolder ? names.length < segments.length : names.length !== segments.length) return false;
    return segments.every((segment, index) => matchesName(names[index] ?? '', segment));
  });
}

/** @param {string} name @param {string} glob with `*` for any run of characters */
function matchesName(name, glob) {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}
