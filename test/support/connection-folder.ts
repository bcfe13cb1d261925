import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A connections folder (`Authentication:ConnectionsDirectory`) in a temporary directory,
 * written as a provisioning job would: each file replaced whole (written beside it, then
 * renamed over it), so the instance watching the folder never reads half a file.
 */
export class ConnectionFolder {
  private constructor(readonly path: string) {}

  static async create(): Promise<ConnectionFolder> {
    return new ConnectionFolder(await mkdtemp(join(tmpdir(), 'gatehouse-connections-')));
  }

  /** The path of `<name>.json`. */
  fileOf(name: string): string {
    return join(this.path, `${name}.json`);
  }

  /** Writes `<name>.json` holding `section`. */
  write(name: string, section: Readonly<Record<string, unknown>>): Promise<void> {
    return this.writeText(`${name}.json`, JSON.stringify(section, null, 2));
  }

  /** Writes any file of the folder (a secret beside the connections, a file that is not JSON), whole. */
  async writeText(relativePath: string, text: string): Promise<void> {
    const target = join(this.path, relativePath);
    await mkdir(dirname(target), { recursive: true });
    const partial = join(dirname(target), `.${Math.random().toString(36).slice(2)}.partial`);
    await writeFile(partial, text);
    await rename(partial, target);
  }

  remove(name: string): Promise<void> {
    return rm(this.fileOf(name));
  }

  dispose(): Promise<void> {
    return rm(this.path, { recursive: true, force: true });
  }
}

/** The connections `/health/ready` reports, with its status. */
export async function readiness(appUrl: string): Promise<{ status: number; connections: Record<string, string> }> {
  const response = await fetch(`${appUrl}/health/ready`);
  const body: unknown = await response.json();
  const listed =
    typeof body === 'object' && body !== null && 'connections' in body && typeof body.connections === 'object'
      ? body.connections
      : null;
  const connections: Record<string, string> = {};
  for (const [name, state] of Object.entries(listed ?? {})) if (typeof state === 'string') connections[name] = state;
  return { status: response.status, connections };
}
