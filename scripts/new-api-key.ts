import { randomBytes } from 'node:crypto';
import { newApiKey } from '../src/adapters/koa/api-keys.js';

/**
 * Prints a new key for the administration API and the hash that admits it. The key goes to
 * the provisioning job that calls the API (`Authorization: Bearer <key>`), and only the
 * hash to the deployment's `ProjectTemplate:Administration:ApiKeys`: a configuration read
 * by someone else admits nobody. Nothing is written to any file.
 */
const { key, hash, id } = newApiKey(randomBytes);
process.stdout.write(
  [
    `API key (give it to the job calling the API; it is shown once): ${key}`,
    `Its hash, for ProjectTemplate:Administration:ApiKeys: ${hash}`,
    `Its id, as the audit trail names it: api-key:${id}`,
    '',
  ].join('\n'),
);
