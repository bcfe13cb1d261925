import { readFileSync } from 'node:fs';

/** This project's package name, which the app-info API reports (a generated project has its own). */
export const packageName = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string }
).name;
