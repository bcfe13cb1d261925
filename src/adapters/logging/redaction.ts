/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Query parameters whose values may be logged; every other value is redacted (codes,
 * tokens, SAML messages, state ...). `returnUrl` is logged with its own query redacted.
 */
const LOGGABLE_QUERY_PARAMETERS = new Set(['provider', 'error']);

/**
 * Paths that carry a secret in a segment of their own: a setup link's token
 * (`RoutePaths.setupLink`, `/setup/link/:token`). Its page is fetched before its button
 * spends it (by the IT admin, or a mail scanner), so a log line with the path would hand a
 * live link to anyone reading the log. Routes match whatever the case: so does this.
 */
const SECRET_PATH_SEGMENT = /^(\/setup\/link\/)[^/?#]+/i;

/** The request URL as it may appear in a log line: path (its secret segments redacted), and query values only for harmless names. */
export function redactUrl(url: string): string {
  return redactQuery(url, true);
}

/**
 * A `returnUrl` is itself a URL whose query may carry a secret (`/reset?token=...`): its
 * query is redacted as the request's own is, one level deep.
 */
function redactQuery(given: string, redactReturnUrl: boolean): string {
  const url = given.replace(SECRET_PATH_SEGMENT, `$1${REDACTED}`);
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const path = url.slice(0, queryStart);
  const parts = url
    .slice(queryStart + 1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const separator = part.indexOf('=');
      const name = separator === -1 ? part : part.slice(0, separator);
      let decodedName = name;
      try {
        decodedName = decodeURIComponent(name);
      } catch {
        /* a malformed name is logged as sent, its value redacted */
      }
      if (separator === -1) return name;
      const lowerName = decodedName.toLowerCase();
      if (lowerName === 'returnurl') {
        // One level deep: a return URL inside a return URL is redacted whole.
        const value = redactReturnUrl ? decodeQueryValue(part.slice(separator + 1)) : undefined;
        return value === undefined ? `${name}=${REDACTED}` : `${name}=${encodeURIComponent(redactQuery(value, false))}`;
      }
      return LOGGABLE_QUERY_PARAMETERS.has(lowerName) ? part : `${name}=${REDACTED}`;
    });
  return `${path}?${parts.join('&')}`;
}

function decodeQueryValue(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The field paths whose values are replaced with `[REDACTED]`: the secret keys the schema
 * declares, wherever a settings object is logged, and the usual carriers at the top level
 * and inside the containers a log line might hold (headers, query, body). Gatehouse never
 * logs headers or bodies; these paths are the second line of defence, and the secret
 * values (secret-values.ts) the third. Top-level `code` is left alone: it is Gatehouse's own error code,
 * which operators need.
 */
export function redactPaths(secretKeyPaths: readonly string[][]): string[][] {
  const fromSchema = secretKeyPaths.map((path) => ['settings', ...path]);
  const secrets = [
    'cookie',
    'authorization',
    'password',
    'client_secret',
    'access_token',
    'refresh_token',
    'id_token',
    'tokens',
    'SAMLResponse',
    'SAMLRequest',
  ];
  const containers = [['headers'], ['req', 'headers'], ['res', 'headers'], ['query'], ['body'], ['params']];
  const nested = containers.flatMap((container) =>
    [...secrets, 'code', 'state', 'set-cookie'].map((name) => [...container, name]),
  );
  return [...fromSchema, ...secrets.map((name) => [name]), ...nested];
}

interface PathNode {
  /** The value here is replaced whole. */
  redact: boolean;
  children: Map<string, PathNode>;
}

/**
 * Returns a function that gives a log line's fields with the values at `paths` replaced
 * (a `*` segment matches any name).
 * The caller's object is never changed: only the objects on the way to a redacted value
 * are copied, and a line with none of those names is returned as it came (the request
 * log's line costs a lookup per field).
 */
export function pathRedactor(paths: readonly string[][]): (fields: object) => object {
  const root: PathNode = { redact: false, children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const name of path) {
      let child = node.children.get(name);
      if (!child) node.children.set(name, (child = { redact: false, children: new Map() }));
      node = child;
    }
    node.redact = true;
  }
  const redactBelow = (value: object, node: PathNode): object => {
    let copy: Record<string, unknown> | undefined;
    for (const name of Object.keys(value)) {
      const child = node.children.get(name) ?? node.children.get('*');
      if (!child) continue;
      const current = (value as Record<string, unknown>)[name];
      const replacement = child.redact
        ? REDACTED
        : typeof current === 'object' && current !== null
          ? redactBelow(current, child)
          : current;
      if (replacement === current) continue;
      copy ??= { ...value };
      copy[name] = replacement;
    }
    return copy ?? value;
  };
  return (fields) => redactBelow(fields, root);
}
