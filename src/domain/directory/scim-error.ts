import { GatehouseError } from '../errors.js';

/**
 * RFC 7644 3.12, Table 9: the detail error keywords. Each is sent with 400 Bad Request,
 * except `uniqueness`, which RFC 7644 3.3 pairs with 409 Conflict.
 */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/** The statuses a SCIM refusal without a detail keyword answers with (RFC 7644 3.12, Table 8). */
export type ScimStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 500 | 501;

const codeOfStatus: Record<ScimStatus, string> = {
  400: 'scim.bad_request',
  401: 'scim.unauthorized',
  403: 'scim.forbidden',
  404: 'scim.not_found',
  409: 'scim.conflict',
  412: 'scim.precondition_failed',
  413: 'scim.too_large',
  500: 'scim.internal',
  501: 'scim.not_implemented',
};

/** The error message schema of RFC 7644 3.12. */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * A refusal of a SCIM request, carrying what the SCIM error response says: the HTTP status,
 * the detail keyword (`scimType`) and a `detail` in plain words. The detail names attributes
 * and limits, never a value the client sent (a value may be personal or secret, and may be
 * long), so it is safe to show and to log.
 *
 * Unlike the rest of the domain's errors this one carries its status: SCIM fixes the status
 * of each keyword (RFC 7644 3.12), and clients (Entra ID, Okta) act on the pair.
 */
export class ScimError extends GatehouseError {
  readonly status: ScimStatus;
  readonly scimType: ScimType | undefined;
  readonly detail: string;

  /** With a keyword, the status is the one RFC 7644 gives it; with a status, there is no keyword. */
  constructor(kind: ScimType | ScimStatus, detail: string) {
    const scimType = typeof kind === 'string' ? kind : undefined;
    const status: ScimStatus = typeof kind === 'number' ? kind : kind === 'uniqueness' ? 409 : 400;
    super(scimType === undefined ? codeOfStatus[status] : `scim.${snakeCase(scimType)}`, detail, { safe: true });
    this.name = 'ScimError';
    this.status = status;
    this.scimType = scimType;
    this.detail = detail;
  }

  /** The response body (RFC 7644 3.12: `status` is a string there). */
  body(): { schemas: string[]; status: string; scimType?: ScimType; detail: string } {
    return {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(this.status),
      ...(this.scimType === undefined ? {} : { scimType: this.scimType }),
      detail: this.detail,
    };
  }
}

function snakeCase(keyword: string): string {
  return keyword.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
