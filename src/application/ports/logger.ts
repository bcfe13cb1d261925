/**
 * Where the application reports what happened. Callers pass structured fields and
 * never a secret: the logging adapter redacts configured secrets as a second line of
 * defence, not as the first.
 */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export const LoggerToken = Symbol('Logger');
