import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import { metadataRefusal } from './saml-refusals.js';

/** An identity provider's own metadata is a few KiB; 1 MiB leaves room for many certificates and endpoints. */
export const MAX_METADATA_BYTES = 1024 * 1024;

/**
 * Fetches a metadata document: one GET, no redirect followed (the configured URL is the
 * one trusted), the whole exchange, body included, within `timeoutMs`, and at most
 * `MAX_METADATA_BYTES` read. Failures are `idp.timeout`, `idp.unreachable` or
 * `idp.metadata_invalid`, never the library's error (which may quote the URL).
 */
export async function fetchMetadata(url: string, timeoutMs: number): Promise<string> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      redirect: 'error',
      signal: deadline,
      headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' },
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new GatehouseError(
        'idp.unreachable',
        `The identity provider's metadata could not be fetched (HTTP ${response.status}).`,
        { safe: true },
      );
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_METADATA_BYTES) {
      await response.body?.cancel();
      throw metadataRefusal('It is larger than 1 MiB.');
    }
    return await readBounded(response);
  } catch (error) {
    if (isGatehouseError(error)) throw error;
    if (deadline.aborted) {
      throw new GatehouseError('idp.timeout', "The identity provider's metadata did not arrive in time.", {
        safe: true,
      });
    }
    throw new GatehouseError('idp.unreachable', "The identity provider's metadata could not be fetched.", {
      safe: true,
    });
  }
}

async function readBounded(response: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); reader && read && !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_METADATA_BYTES) {
      await reader.cancel();
      throw metadataRefusal('It is larger than 1 MiB.');
    }
    chunks.push(read.value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw metadataRefusal('It is not UTF-8 text.');
  }
}
