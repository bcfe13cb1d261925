import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { GatehouseError } from '../../domain/errors.js';
import {
  readIdentityProviderMetadata,
  type IdentityProviderMetadata,
  type MetadataTrust,
} from './identity-provider-metadata.js';
import { metadataRefusal } from './saml-refusals.js';

/**
 * Documents larger than this are read in a worker thread. Parsing costs about 0.13 s per
 * MiB and verifying a signature with xml-crypto over 1 s per MiB (README: Federation
 * metadata), all of it synchronous: an identity provider's own metadata (a few KiB) is
 * read in place, an aggregate off the event loop.
 */
export const OFF_THREAD_ABOVE_BYTES = 256 * 1024;
/** A read that has not finished by then is given up (a 20 MB signed aggregate takes about 30 s). */
const WORKER_TIMEOUT_MS = 120_000;
/** The worker's own heap bound: a 20 MB signed aggregate peaks below 1 GB of resident memory. */
const WORKER_HEAP_MB = 2048;

/**
 * `readIdentityProviderMetadata`, for a document of any size: in place when it is small,
 * otherwise in a worker thread, so that requests keep being served meanwhile, and whose
 * memory (the document's tree, twice when signed) goes with it when it ends.
 */
export function readMetadata(xml: string, now: number, trust: MetadataTrust): Promise<IdentityProviderMetadata> {
  if (Buffer.byteLength(xml) <= OFF_THREAD_ABOVE_BYTES) {
    return Promise.resolve().then(() => readIdentityProviderMetadata(xml, now, trust));
  }
  return new Promise((resolve, reject) => {
    const worker = startWorker({ xml, now, trust });
    const timer = setTimeout(
      () => finish(metadataRefusal('Reading it took longer than two minutes.')),
      WORKER_TIMEOUT_MS,
    );
    timer.unref();
    let settled = false;
    const finish = (result: IdentityProviderMetadata | GatehouseError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (result instanceof GatehouseError) reject(result);
      else resolve(result);
    };
    worker.unref();
    worker.once('message', (message: { metadata?: IdentityProviderMetadata; refusal?: string }) => {
      if (message.metadata) finish(message.metadata);
      else finish(new GatehouseError('idp.metadata_invalid', message.refusal ?? unreadable().message, { safe: true }));
    });
    worker.once('error', () => finish(unreadable()));
    worker.once('exit', () => finish(unreadable()));
  });
}

function unreadable(): GatehouseError {
  return metadataRefusal('It could not be read (the reader ran out of memory or failed).');
}

/**
 * The worker, from wherever this module runs: compiled (`metadata-reader-worker.js` beside
 * it), bundled (`dist/bundle/saml-metadata-reader.js`, its own entry point, this module
 * being in `dist/bundle/chunks/`), or from source under tsx (`.ts`, which the worker
 * can load only once tsx's loader is registered in it).
 */
function startWorker(workerData: unknown): Worker {
  const options = { workerData, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } };
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const source = new URL('./metadata-reader-worker.ts', here).href;
    const boot = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(source)});`;
    return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), options);
  }
  const compiled = new URL('./metadata-reader-worker.js', here);
  return new Worker(
    existsSync(fileURLToPath(compiled)) ? compiled : new URL('../saml-metadata-reader.js', here),
    options,
  );
}
