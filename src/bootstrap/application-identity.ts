import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ApplicationIdentity {
  /** The package name (package.json `name`). */
  name: string;
  version: string;
  /** What people read: the page title, header and footer, the build's lines. */
  displayName: string;
}

/**
 * The application's name, from the one place it is written: package.json. Its
 * `displayName` when it has one (Gatehouse's is "Gatehouse"), else its package name: a
 * project made with `npm run new` is called by its own name until it chooses another.
 */
export function applicationIdentity(rootDir: string): ApplicationIdentity {
  const manifest: unknown = JSON.parse(readFileSync(join(rootDir, 'package.json'), 'utf8'));
  const field = (key: string): string | undefined => {
    if (typeof manifest !== 'object' || manifest === null) return undefined;
    const value: unknown = Object.getOwnPropertyDescriptor(manifest, key)?.value;
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const name = field('name') ?? 'unknown';
  return { name, version: field('version') ?? 'unknown', displayName: field('displayName') ?? name };
}
