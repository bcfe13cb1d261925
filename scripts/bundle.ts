/**
 * `npm run build`, last step: the bundle `npm start` runs, dist/bundle/main.js
 * (scripts/build/bundle-gatehouse.ts says why and how).
 *
 *   tsx scripts/bundle.ts
 */
import { join } from 'node:path';
import { bundleGatehouse, projectRoot } from './build/bundle-gatehouse.js';

await bundleGatehouse(join(projectRoot, 'dist', 'bundle'));
