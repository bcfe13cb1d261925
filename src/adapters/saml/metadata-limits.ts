/**
 * How large a metadata document Gatehouse reads (`MetadataMaxBytes`). An identity
 * provider's own metadata is a few KiB; a federation aggregate is tens of MB. Reading one
 * takes a core for seconds (half a minute for a signed 20 MB aggregate, in a worker
 * thread: metadata-reader.ts) and hundreds of MB at its peak; the bounds come from
 * scripts/bench/federation-metadata.ts (README: Federation metadata).
 */
export const MIN_METADATA_MAX_BYTES = 64 * 1024;
export const DEFAULT_METADATA_MAX_BYTES = 1024 * 1024;
export const MAX_METADATA_MAX_BYTES = 24 * 1024 * 1024;
/**
 * The largest metadata document given as a value (`IdpMetadata`: a file an identity
 * provider's admin downloaded) rather than fetched: an identity provider's own metadata is
 * a few KiB (ADFS's, the largest seen, some 60 KiB); an aggregate is fetched by MetadataUrl.
 */
export const MAX_IDP_METADATA_BYTES = 128 * 1024;
