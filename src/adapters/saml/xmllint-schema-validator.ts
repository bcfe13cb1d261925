import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { GatehouseError } from '../../domain/errors.js';
import { samlRefusal } from './saml-refusals.js';

export interface XmllintOptions {
  /** The folder holding saml-schema-protocol-2.0.xsd and the schemas it imports. */
  schemaDir: string;
  executable?: string;
  /** A validation that takes longer is killed (default 5 s). */
  timeoutMs?: number;
  /** Validations running at once; more wait their turn (default 4). */
  concurrency?: number;
}

const unavailable = () =>
  new GatehouseError('idp.validator_unavailable', 'The sign-in response could not be checked. Try again later.', {
    safe: true,
  });

/**
 * samlify's schema validator, chosen by measurement (README, "SAML schema validation"):
 * Debian's `xmllint` (libxml2-utils) run once per message, the message on its standard
 * input, the SAML 2.0 schemas from disk, no network (`--nonet`). Each validation's memory
 * lives and dies with its own process, so resident memory stays flat over any number of
 * validations; its output is discarded unread, so nothing of a message is ever printed;
 * and it installs no process-wide listener. xmllint exits 0 for a valid document, 1-4
 * for an invalid one; anything else (killed at the time-out, not installed) is
 * `idp.validator_unavailable`, a 503, never a pass.
 */
export class XmllintSchemaValidator {
  readonly #executable: string;
  readonly #schema: string;
  readonly #timeoutMs: number;
  readonly #concurrency: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(options: XmllintOptions) {
    this.#executable = options.executable ?? 'xmllint';
    this.#schema = join(options.schemaDir, 'saml-schema-protocol-2.0.xsd');
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#concurrency = options.concurrency ?? 4;
  }

  /** samlify's `validate` callback: resolves for a schema-valid message, rejects with a GatehouseError otherwise. */
  readonly validate = async (xml: string): Promise<string> => {
    await this.#turn();
    try {
      return await this.#run(xml);
    } finally {
      this.#running -= 1;
      this.#waiting.shift()?.();
    }
  };

  #turn(): Promise<void> {
    if (this.#running < this.#concurrency) {
      this.#running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.#waiting.push(() => {
        this.#running += 1;
        resolve();
      }),
    );
  }

  #run(xml: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.#executable, ['--noout', '--nonet', '--schema', this.#schema, '-'], {
        stdio: ['pipe', 'ignore', 'ignore'],
        timeout: this.#timeoutMs,
        killSignal: 'SIGKILL',
      });
      child.once('error', () => reject(unavailable()));
      // A child that exits before reading everything closes the pipe: its exit code says why.
      child.stdin.once('error', () => undefined);
      child.once('close', (code) => {
        if (code === 0) resolve('valid');
        else if (code !== null && code >= 1 && code <= 4) reject(samlRefusal('idp.schema_invalid'));
        else reject(unavailable());
      });
      child.stdin.end(xml);
    });
  }
}

/** Whether `xmllint` can be started at all; a missing one is a startup problem, not a failure at the first sign-in. */
export function isXmllintInstalled(executable = 'xmllint'): boolean {
  const result = spawnSync(executable, ['--version'], { stdio: 'ignore', timeout: 5000 });
  return result.error === undefined && result.status === 0;
}
