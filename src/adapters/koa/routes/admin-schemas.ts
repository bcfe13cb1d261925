import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { AdministrationProblem } from '../../../application/administration/administration-problem.js';

type Schema = Record<string, unknown>;

/** The largest page the list answers. */
export const MAX_PAGE = 100;
const DEFAULT_PAGE = 50;

/**
 * The JSON schemas of the administration API's requests, compiled once with ajv: what each
 * request is checked against, and what the OpenAPI document is generated from
 * (admin-openapi.ts), so the document cannot say one thing while the API checks another.
 * A connection's keys themselves are typed by the configuration's own schema (the section
 * reader, as for a file); the body schema here adds the request's envelope.
 */
export interface AdminSchemas {
  /** `connection` is the configuration schema's connection section, keys in their documented case. */
  readonly json: { connection: Schema; connectionBody: Schema; enabledPatch: Schema; listQuery: Schema };
  connectionBody(value: unknown): Record<string, unknown> & { version?: number };
  enabledPatch(value: unknown): { Enabled: boolean; version?: number };
  listQuery(query: Record<string, unknown>): { limit: number; after?: string; organization?: string; domain?: string };
}

export function adminSchemas(connectionSection: Schema): AdminSchemas {
  const properties = Object.fromEntries(
    Object.entries((connectionSection.properties ?? {}) as Record<string, Schema>)
      // A file's `<Key>File` keys name files on the instance's disk: the API takes the secret itself.
      .filter(([key]) => !key.endsWith('File'))
      // A secret is write-only: no answer of the API holds one.
      .map(([key, schema]) => [key, schema.secret === true ? { type: schema.type, writeOnly: true } : schema]),
  );
  const version = {
    type: 'integer',
    minimum: 0,
    maximum: 999_999_999,
    description: 'The version the write is based on (If-Match wins).',
  };
  const connection: Schema = { type: 'object', properties, additionalProperties: false };
  const connectionBody: Schema = {
    type: 'object',
    properties: { version },
    description:
      'The connection file\'s keys (any letter case, as in a file), and optionally the version the write is based on. Secrets are given as values; left out, a stored secret is kept; "" clears it.',
  };
  const enabledPatch: Schema = {
    type: 'object',
    properties: { Enabled: { type: 'boolean' }, version },
    required: ['Enabled'],
    additionalProperties: false,
  };
  const listQuery: Schema = {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE },
      cursor: { type: 'string', maxLength: 64, description: 'The `next` of the previous page.' },
      organization: { type: 'string', maxLength: 200 },
      domain: { type: 'string', maxLength: 253 },
    },
    additionalProperties: false,
  };
  const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true });
  const bodyCheck = ajv.compile(connectionBody);
  const patchCheck = ajv.compile(enabledPatch);
  const queryCheck = ajv.compile(listQuery);
  return {
    json: {
      connection,
      connectionBody: { ...connectionBody, properties: { ...properties, version } },
      enabledPatch,
      listQuery,
    },
    connectionBody(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw invalid("The body is a JSON object of the connection's keys.", []);
      }
      const copy = { ...(value as Record<string, unknown>) };
      check(bodyCheck, copy, 'The body is not a connection.');
      return copy as Record<string, unknown> & { version?: number };
    },
    enabledPatch(value) {
      const copy = typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : value;
      check(patchCheck, copy, 'A PATCH sets Enabled (true or false) and nothing else.');
      return copy as { Enabled: boolean; version?: number };
    },
    listQuery(query) {
      const copy: Record<string, unknown> = { ...query };
      check(queryCheck, copy, 'The query is not one the list takes.');
      const { limit, cursor, organization, domain } = copy as {
        limit: number;
        cursor?: string;
        organization?: string;
        domain?: string;
      };
      return {
        limit,
        ...(cursor !== undefined ? { after: cursor } : {}),
        ...(organization !== undefined ? { organization } : {}),
        ...(domain !== undefined ? { domain } : {}),
      };
    },
  };
}

function check(validate: ValidateFunction, value: unknown, detail: string): void {
  if (validate(value)) return;
  throw invalid(detail, (validate.errors ?? []).map(keyProblem));
}

/** An ajv error as a key problem: the key's path (`Enabled`, `limit`), never the value. */
function keyProblem(error: ErrorObject): { key: string; message: string } {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', ':');
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: string }).additionalProperty ?? '');
    return { key: path === '' ? extra : `${path}:${extra}`, message: 'is not a key this request takes' };
  }
  if (error.keyword === 'required') {
    return {
      key: String((error.params as { missingProperty?: string }).missingProperty ?? path),
      message: 'is required',
    };
  }
  return { key: path, message: error.message ?? 'is not valid' };
}

function invalid(detail: string, problems: Array<{ key: string; message: string }>): AdministrationProblem {
  return new AdministrationProblem('invalid', 'request.invalid', detail, problems);
}
