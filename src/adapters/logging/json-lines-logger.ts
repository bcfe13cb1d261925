import type { Logger } from '../../application/ports/logger.js';
import type { LoggingSettings } from '../../domain/settings/settings.js';
import type { LogDestination } from './buffered-destination.js';
import { pathRedactor, redactPaths, secretScrubber } from './redaction.js';

export interface LoggerOptions {
  level: LoggingSettings['Level'];
  /** Configured secret values: scrubbed from every line, whatever field they hide in. */
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
 * name, message and code, and every configured secret value scrubbed from the finished
 * line. Written by Gatehouse rather than by pino: the port needs four methods and no
 * child loggers or transports, and a line built directly costs a fraction of pino's
 * per line on the request path and nothing at start (docs/operations.md, Logging; docs/performance.md).
 */
export function createJsonLinesLogger(options: LoggerOptions): Logger & SecretsLearner & ContextFields {
  const threshold = LEVEL_NUMBERS[options.level];
  const redact = pathRedactor(redactPaths(options.secretKeyPaths));
  const known = new Set(options.secretValues);
  // Built again when the next line is written after new secrets were learned, not once per
  // secret: a start reading a thousand connection files learns a thousand.
  let scrub: ((line: string) => string) | undefined;
  // Fields of the moment a line is written (the active span's ids), once telemetry is on:
  // a ready JSON fragment of hexadecimal ids, so that no line copies or redacts its fields for them.
  let contextFields: (() => string) | undefined;
  const { destination } = options;
  const writerAt = (level: number) =>
    level < threshold
      ? () => undefined
      : (fields: object, message: string) =>
          destination.write(
            (scrub ??= secretScrubber([...known]))(
              jsonLine(level, redact(withError(fields)), message, contextFields?.() ?? ''),
            ),
          );
  return {
    debug: writerAt(20),
    info: writerAt(30),
    warn: writerAt(40),
    error: writerAt(50),
    addContextFields(fields) {
      contextFields = fields;
    },
    learnSecrets(values) {
      const before = known.size;
      for (const value of values) known.add(value);
      if (known.size !== before) scrub = undefined;
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

/** Secrets read after start (a connection file's client secret) are scrubbed from later lines too. */
export interface SecretsLearner {
  learnSecrets(values: readonly string[]): void;
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
