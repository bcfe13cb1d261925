import { routeTemplate, type Endpoint } from '../endpoint.js';
import type { AdminSchemas } from './admin-schemas.js';
import { RoutePaths } from './route-paths.js';

type Json = Record<string, unknown>;

interface Operation {
  summary: string;
  body?: string;
  ok: { status: number; schema?: Json; description: string };
  refusals: number[];
  query?: boolean;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What each endpoint does, answers and refuses: the table the document is generated from, keyed by method and path. */
const OPERATIONS: Readonly<Record<string, Operation>> = {
  [`GET ${RoutePaths.adminOpenApi}`]: {
    summary: 'This document.',
    ok: { status: 200, description: 'The OpenAPI 3.1 document of the administration API.' },
    refusals: [401, 403, 429],
  },
  [`GET ${RoutePaths.adminConnections}`]: {
    summary: "Lists connections, by name: the API's and, read-only, the operator's.",
    query: true,
    ok: {
      status: 200,
      description: 'A page of connections; `next` is the cursor of the next page.',
      schema: {
        type: 'object',
        properties: { connections: { type: 'array', items: ref('ConnectionView') }, next: { type: 'string' } },
        required: ['connections'],
      },
    },
    refusals: [401, 403, 422, 429, 503],
  },
  [`GET ${RoutePaths.adminConnection}`]: {
    summary: 'Reads a connection: its keys without any secret, and its version (ETag).',
    ok: { status: 200, description: 'The connection.', schema: ref('ConnectionView') },
    refusals: [401, 403, 404, 429, 503],
  },
  [`PUT ${RoutePaths.adminConnection}`]: {
    summary: 'Creates (201) or replaces (200) a connection, after its pre-flight.',
    body: 'ConnectionBody',
    ok: { status: 200, description: 'The connection as stored (201 when created).', schema: ref('ConnectionView') },
    refusals: [400, 401, 403, 409, 413, 415, 422, 429, 503],
  },
  [`PATCH ${RoutePaths.adminConnection}`]: {
    summary: 'Turns a connection on or off.',
    body: 'EnabledPatch',
    ok: { status: 200, description: 'The connection as stored.', schema: ref('ConnectionView') },
    refusals: [400, 401, 403, 404, 409, 415, 422, 429, 503],
  },
  [`DELETE ${RoutePaths.adminConnection}`]: {
    summary: 'Removes a connection: its sessions end.',
    ok: { status: 204, description: 'Removed.' },
    refusals: [401, 403, 404, 409, 429, 503],
  },
  [`GET ${RoutePaths.adminConnectionDomains}`]: {
    summary: "A connection's domains, whether each routes, and the TXT record that proves it.",
    ok: { status: 200, description: 'The domains.', schema: { type: 'array', items: ref('DomainView') } },
    refusals: [401, 403, 404, 429, 503],
  },
  [`POST ${RoutePaths.adminConnectionDomainVerify}`]: {
    summary: "Looks the domain's TXT record up; found, the domain routes from now on.",
    ok: { status: 200, description: 'The domain, verified.', schema: ref('DomainView') },
    refusals: [401, 403, 404, 409, 422, 429, 503],
  },
  [`GET ${RoutePaths.adminConnectionAttempts}`]: {
    summary:
      "A connection's last 100 sign-in attempts of the last 30 days, newest first: time, outcome, the refusal's code and reason, the e-mail domain, the subject's SHA-256.",
    ok: {
      status: 200,
      description: 'The attempts.',
      schema: {
        type: 'object',
        properties: { attempts: { type: 'array', items: ref('SignInAttempt') } },
        required: ['attempts'],
      },
    },
    refusals: [401, 403, 404, 429, 503],
  },
  [`GET ${RoutePaths.adminConnectionCertificates}`]: {
    summary:
      "The signing certificates of the connection's identity provider (SAML metadata; OpenID Connect key set x5c), soonest expiring first.",
    ok: {
      status: 200,
      description: 'The certificates; none when its keys carry no certificate.',
      schema: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            subject: { type: 'string' },
            notAfter: { type: 'string', format: 'date-time' },
            daysLeft: { type: 'integer' },
          },
          required: ['subject', 'notAfter', 'daysLeft'],
        },
      },
    },
    refusals: [401, 403, 404, 429, 503],
  },
  [`POST ${RoutePaths.adminSetupLinks}`]: {
    summary:
      "Makes a one-time setup link for the organization's IT admin (body: optional connection name and days, 1 to 30, default 7); the URL is in this answer only.",
    body: 'SetupLinkRequest',
    ok: {
      status: 201,
      description: 'The link.',
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          url: { type: 'string', format: 'uri' },
          connection: { type: 'string' },
          expiresAt: { type: 'string', format: 'date-time' },
        },
        required: ['id', 'url', 'connection', 'expiresAt'],
      },
    },
    refusals: [400, 401, 403, 409, 415, 422, 429, 503],
  },
  [`DELETE ${RoutePaths.adminSetupLink}`]: {
    summary: 'Revokes a setup link of the organization.',
    ok: { status: 204, description: 'Revoked.' },
    refusals: [401, 403, 404, 429, 503],
  },
  [`POST ${RoutePaths.adminScimTokens}`]: {
    summary:
      "Makes a bearer token for the organization's SCIM directory sync (at most two at once, for a rotation); the token is in this answer only.",
    ok: {
      status: 201,
      description: 'The token, and the base URL the directory is given.',
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          token: { type: 'string' },
          baseUrl: { type: 'string', format: 'uri' },
          createdAt: { type: 'string', format: 'date-time' },
        },
        required: ['id', 'token', 'baseUrl', 'createdAt'],
      },
    },
    refusals: [401, 403, 404, 409, 429, 503],
  },
  [`GET ${RoutePaths.adminScimTokens}`]: {
    summary: "Lists the organization's SCIM tokens (ids and times: never a token).",
    ok: {
      status: 200,
      description: 'The tokens.',
      schema: {
        type: 'object',
        properties: {
          tokens: {
            type: 'array',
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } },
            },
          },
        },
      },
    },
    refusals: [401, 403, 404, 429, 503],
  },
  [`DELETE ${RoutePaths.adminScimToken}`]: {
    summary: "Revokes one of the organization's SCIM tokens: its next request gets 401.",
    ok: { status: 204, description: 'Revoked.' },
    refusals: [401, 403, 404, 429, 503],
  },
  [`DELETE ${RoutePaths.adminConnectionDomain}`]: {
    summary: 'Removes a domain from a connection.',
    ok: { status: 204, description: 'Removed.' },
    refusals: [401, 403, 404, 409, 422, 429, 503],
  },
};

/**
 * The OpenAPI 3.1 document of the administration API, generated from its endpoints and the
 * schemas its requests are checked against. An endpoint missing from the table above is a
 * programming error, thrown at composition (and held to every route by a test).
 */
export function adminOpenApi(endpoints: readonly Endpoint[], schemas: AdminSchemas, version: string): Json {
  const paths: Record<string, Json> = {};
  for (const endpoint of endpoints) {
    const operation = OPERATIONS[`${endpoint.method} ${endpoint.path}`];
    if (!operation)
      throw new Error(`${endpoint.method} ${endpoint.path} has no OpenAPI description (admin-openapi.ts)`);
    const template = routeTemplate(endpoint.path);
    const parameters = [
      ...[...template.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...(operation.query
        ? Object.entries(schemas.json.listQuery.properties as Record<string, Json>).map(([name, schema]) => ({
            name,
            in: 'query',
            required: false,
            schema,
          }))
        : []),
      ...(['PUT', 'PATCH', 'DELETE', 'POST'].includes(endpoint.method)
        ? [
            {
              name: 'If-Match',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description: 'The ETag the write is based on.',
            },
          ]
        : []),
    ];
    paths[template] = {
      ...paths[template],
      [endpoint.method.toLowerCase()]: {
        summary: operation.summary,
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(operation.body
          ? { requestBody: { required: true, content: { 'application/json': { schema: ref(operation.body) } } } }
          : {}),
        responses: {
          [String(operation.ok.status)]: {
            description: operation.ok.description,
            ...(operation.ok.schema ? { content: { 'application/json': { schema: operation.ok.schema } } } : {}),
          },
          ...Object.fromEntries(
            operation.refusals.map((status) => [
              String(status),
              {
                description: 'Problem details (RFC 9457).',
                content: { 'application/problem+json': { schema: ref('Problem') } },
              },
            ]),
          ),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Gatehouse administration API', version },
    security: [{ apiKey: [] }, { session: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'A key of Administration:ApiKeys (npm run admin:new-api-key).',
        },
        session: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description:
            "A signed-in staff member's session cookie with the ManageConnections policy; unsafe requests send the session's anti-forgery token.",
        },
      },
      schemas: {
        ConnectionBody: schemas.json.connectionBody,
        EnabledPatch: schemas.json.enabledPatch,
        SignInAttempt: {
          type: 'object',
          properties: {
            at: { type: 'string', format: 'date-time' },
            outcome: { enum: ['succeeded', 'refused'] },
            code: { type: 'string' },
            reason: { type: 'string' },
            emailDomain: { type: 'string' },
            subjectSha256: { type: 'string' },
          },
          required: ['at', 'outcome'],
        },
        SetupLinkRequest: {
          type: 'object',
          properties: {
            connection: { type: 'string', description: "The connection to set up (default: the organization's name)." },
            days: { type: 'integer', minimum: 1, maximum: 30, default: 7 },
          },
          additionalProperties: false,
        },
        ConnectionView: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            version: { type: 'integer' },
            managedBy: { enum: ['api', 'operator'] },
            state: { enum: ['in-force', 'disabled', 'refused'] },
            keys: schemas.json.connection,
            secretsSet: { type: 'array', items: { type: 'string' } },
            domains: { type: 'array', items: ref('DomainView') },
            updatedAt: { type: 'string', format: 'date-time' },
          },
          required: ['name', 'managedBy', 'state', 'keys', 'secretsSet', 'domains'],
        },
        DomainView: {
          type: 'object',
          properties: {
            domain: { type: 'string' },
            verified: { oneOf: [{ type: 'boolean' }, { const: 'operator' }] },
            verifiedAt: { type: ['string', 'null'], format: 'date-time' },
            record: {
              oneOf: [
                {
                  type: 'object',
                  properties: { type: { const: 'TXT' }, name: { type: 'string' }, value: { type: 'string' } },
                  required: ['type', 'name', 'value'],
                },
                { type: 'null' },
              ],
            },
          },
          required: ['domain', 'verified', 'verifiedAt', 'record'],
        },
        Problem: {
          type: 'object',
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string' },
            problems: {
              type: 'array',
              items: {
                type: 'object',
                properties: { key: { type: 'string' }, message: { type: 'string' } },
                required: ['key', 'message'],
              },
            },
          },
          required: ['title', 'status'],
        },
      },
    },
  };
}
