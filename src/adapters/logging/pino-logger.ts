import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../../application/ports/logger.js';
import type { LoggingSettings } from '../../domain/settings/settings.js';
import { secretKeyPaths } from '../config/schema.js';
import { bufferedDestination } from './buffered-destination.js';
import { redactPaths, secretScrubber } from './redaction.js';

export interface LoggerOptions {
  level: LoggingSettings['Level'];
  /** Configured secret values: scrubbed from every line, whatever field they hide in. */
  secretValues: readonly string[];
  destination?: DestinationStream;
}

/** JSON lines through pino, with the schema's secrets redacted by path and by value. */
export function createPinoLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: { paths: redactPaths(secretKeyPaths()), censor: '[REDACTED]' },
      serializers: { err: serializeError },
      hooks: { streamWrite: secretScrubber(options.secretValues) },
    },
    options.destination ?? bufferedDestination(),
  );
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
