/**
 * The worker thread that reads a large metadata document (see metadata-reader.ts): it
 * parses, verifies and selects with the same code as the main thread, posts back the
 * selected entity's values or the refusal's message, and ends with its whole heap.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isGatehouseError } from '../../domain/errors.js';
import { readIdentityProviderMetadata, type MetadataTrust } from './identity-provider-metadata.js';

const { xml, now, trust } = workerData as { xml: string; now: number; trust: MetadataTrust };
try {
  parentPort?.postMessage({ metadata: readIdentityProviderMetadata(xml, now, trust) });
} catch (error) {
  parentPort?.postMessage({ refusal: isGatehouseError(error) && error.safe ? error.message : undefined });
}
