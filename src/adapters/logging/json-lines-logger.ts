import type { Logger } from '../../application/ports/logger.js';
import type { LoggingSettings } from '../../domain/settings/settings.js';
import type { LogDestination } from './buffered-destination.js';
import { pathRedactor, redactPaths } from './redaction.js';
import { secretValueRedactor, type SecretValueRedactor } from './secret-values.js';

export interface LoggerOptions {
  level: LoggingSettings['Level'];
  /** Configured secret values: redacted from every line, whatever field they hide in. */
  secretValues: readonly string[];
  /** Paths of the configuration's secret keys (the settings schema's), redacted wherever the settings are logged. */
  secretKeyPaths: readonly string[][];
  destination: LogDestination;
}

/** pino's level numbers, so that the tools that read pino's lines (pino-pretty among them) read these. */
const LEVEL_NUMBERS: Record<LoggingSettings['Level'], number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/**
 * One JSON object per line, in pino's shape (`{"level":30,"time":<epoch ms>,...fields,"msg":"..."}`),
 * with the schema's secrets and the usual carriers redacted by path, errors reduced to
 * name, message and code, and every string value (and the message) that is or holds a
 * configured secret redacted before the line is serialized, so that a secret shaped like
 * JSON can neither break the line nor cut fields out of it. Written by Gatehouse rather than by pino: the port needs four methods and no
 * child loggers or transports, and a line built directly costs a fraction of pino's
 * per line on the request path and nothing at start (docs/operations.md, Logging; docs/performance.md).
 */
export function createJsonLinesLogger(options: LoggerOptions): Logger & SecretsLearner & ContextFields {
  const threshold = LEVEL_NUMBERS[options.level];
  const redact = pathRedactor(redactPaths(options.secretKeyPaths));
  // The secrets each connection in force holds, by owner: replaced when it changes, gone when it goes.
  const held = new Map<string, readonly string[]>();
  // Built again when the next line is written after the secrets changed, not once per
  // change: a start reading a thousand connection files holds a thousand.
  let secrets: SecretValueRedactor | undefined | null = null;
  const currentSecrets = () =>
    secrets === null
      ? (secrets = secretValueRedactor([...options.secretValues, ...[...held.values()].flat()]))
      : secrets;
  // Fields of the moment a line is written (the active span's ids), once telemetry is on:
  // a ready JSON fragment of hexadecimal ids, so that no line copies or redacts its fields for them.
  let contextFields: (() => string) | undefined;
  const { destination } = options;
  const writerAt = (level: number) =>
    level < threshold
      ? () => undefined
      : (fields: object, message: string) => {
          const redacted = redact(withError(fields));
          const secretValues = currentSecrets();
          destination.write(
            secretValues
              ? jsonLine(level, secretValues.fields(redacted), secretValues.text(message), contextFields?.() ?? '')
              : jsonLine(level, redacted, message, contextFields?.() ?? ''),
          );
        };
  return {
    debug: writerAt(20),
    info: writerAt(30),
    warn: writerAt(40),
    error: writerAt(50),
    addContextFields(fields) {
      contextFields = fields;
    },
    holdSecrets(owner, values) {
      const before = held.get(owner) ?? [];
      if (values.length === before.length && values.every((value, index) => value === before[index])) return;
      if (values.length === 0) held.delete(owner);
      else held.set(owner, [...values]);
      secrets = null;
    },
  };
}

/**
 * Fields every line gets from where it is written: `trace_id` and `span_id` while a span is
 * active (telemetry), as a JSON fragment of members each followed by a comma
 * (`"trace_id":"…","span_id":"…",`), or an empty string.
 */
export interface ContextFields {
  addContextFields(fields: () => string): void;
}

/** Secrets read after start (a connection file's client secret), redacted from later lines too. */
export interface SecretsLearner {
  /**
   * The secrets `owner` (a connection) holds now, in place of those it held before; an
   * empty list forgets them (a connection removed).
   */
  holdSecrets(owner: string, values: readonly string[]): void;
}

function jsonLine(level: number, fields: object, message: string, context: string): string {
  let body: string;
  try {
    body = JSON.stringify(fields);
  } catch {
    // A circular structure or a BigInt: the line still says what happened.
    body = '{"logFields":"not serializable as JSON"}';
  }
  const fieldsText = body.length > 2 ? `${body.slice(1, -1)},` : '';
  return `{"level":${level},"time":${Date.now()},${fieldsText}${context}"msg":${JSON.stringify(message)}}\n`;
}

/** `err` as name, message, code and stack only. */
function withError(fields: object): object {
  if (!('err' in fields)) return fields;
  return { ...fields, err: serializeError((fields as { err: unknown }).err) };
}

/**
 * Errors are logged by code and message only: library errors (openid-client) carry the
 * authorization code, claims and token responses in `cause` and in extra properties.
 */
function serializeError(err: unknown): object {
  if (!(err instanceof Error)) return { message: 'non-error thrown' };
  const code = (err as { code?: unknown }).code;
  return { type: err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}), stack: err.stack };
}
