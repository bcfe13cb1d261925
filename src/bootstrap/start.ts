import { enableCompileCache } from './compile-cache.js';

/**
 * The entry point of the production bundle (dist/bundle/main.js, what `npm start` and
 * `node dist/bundle/main.js` run): Node's module compile cache first, in compile-cache/
 * beside the bundle (a build starts it empty), then the application (main.ts) through a
 * dynamic import, the only kind that comes after it: a module's static imports are all
 * compiled before any of its code runs. On Node 22 and later every start after the first
 * reads the compiled code back instead of compiling it again (docs/performance.md: cold
 * start); on Node 20 the application starts as before.
 */
enableCompileCache(new URL('compile-cache/', import.meta.url));
await import('./main.js');
