import type { Logger } from '../application/ports/logger.js';
import { loadConfiguration } from '../adapters/config/load-configuration.js';
import { settingsSchema, type SettingsSchema } from '../adapters/config/settings-schema.js';
import { isRoutedPath } from '../adapters/koa/routes/route-paths.js';
import { bufferedDestination, type LogDestination } from '../adapters/logging/buffered-destination.js';
import { createJsonLinesLogger } from '../adapters/logging/json-lines-logger.js';
import type { ProviderRecord } from '../adapters/provider-record.js';
import { checkSettings, checkUnknownKeys } from '../domain/settings/check-settings.js';
import { usesEmbeddedDirectoryStore } from '../domain/settings/directory-rules.js';
import { loadNodeSqlite } from '../adapters/sqlite/node-sqlite.js';
import { authnContextMethodProblems, stepUpProblems } from '../domain/authorization/step-up-settings.js';
import { applicationPolicies } from './policies.js';
import type { SettingsProblem } from '../domain/settings/problem.js';
import type { Environment, ProjectTemplateSettings } from '../domain/settings/settings.js';
import { resolvePublicOrigin } from './public-origin.js';
import { applicationIdentity } from './application-identity.js';
import { telemetryConfiguration, type TelemetryConfiguration } from './telemetry-configuration.js';
import { formatProblem, StartupError } from './startup-error.js';

export interface ConfigurationOptions {
  /** Process environment (and nothing else is read from process.env). */
  env: Record<string, string | undefined>;
  rootDir: string;
  /** The identity providers this build offers. */
  providers: readonly ProviderRecord[];
  /** Where log lines go (stdout by default), possibly depending on the environment. */
  logDestination?: LogDestination | ((environment: Environment) => LogDestination | undefined);
  /**
   * False when the caller shows a StartupError's problems itself: the entry point at a
   * terminal prints them as text, and a person reads each once, not again as log lines.
   * Warnings are logged either way. Default true.
   */
  logStartupErrors?: boolean;
}

/** Settings every startup rule has passed, and what was learnt reading them. */
export interface ValidatedConfiguration {
  settings: ProjectTemplateSettings;
  environment: Environment;
  rootDir: string;
  providers: readonly ProviderRecord[];
  /** Where the application is reached: every absolute URL is built on it, never on the Host header. */
  publicOrigin: string;
  /** HOST and PORT from the configuration sources (127.0.0.1:3000 by default). */
  listenOn: { port: number; host: string };
  logger: Logger;
  /** The secrets a connection in force holds (an empty list when it is removed): redacted from the log too. */
  holdSecrets: (owner: string, values: readonly string[]) => void;
  /** Fields every later log line gets from where it is written (telemetry: the active span's ids). */
  addLogContext: (fields: () => string) => void;
  /** The OpenTelemetry configuration, when telemetry is on (`ProjectTemplate:Telemetry` and OTEL_*). */
  telemetry: TelemetryConfiguration | undefined;
  destination: LogDestination;
  /** The configuration's schema: connection files are typed by it. */
  schema: SettingsSchema;
  logStartupErrors: boolean;
}

/**
 * The first part of composing an instance: reads the configuration and checks every
 * startup rule at once (types, unknown keys, each enabled provider's rules, callback
 * paths against the declared routes, the public origin), before anything is built. An
 * error throws a StartupError listing every problem; warnings are logged.
 */
export async function validatedConfiguration(options: ConfigurationOptions): Promise<ValidatedConfiguration> {
  const schema = await settingsSchema(options.providers);
  const configuration = loadConfiguration(options.rootDir, options.env, schema);
  const { settings, environment } = configuration;
  const destination =
    (typeof options.logDestination === 'function' ? options.logDestination(environment) : options.logDestination) ??
    bufferedDestination();
  const logger = createJsonLinesLogger({
    // A mistyped level must not stop the log that reports it.
    level: configuration.problems.some((p) => p.key === 'ProjectTemplate:Logging:Level')
      ? 'info'
      : settings.Logging.Level,
    secretValues: configuration.secretValues,
    secretKeyPaths: schema.secretKeyPaths,
    destination,
  });
  const logStartupErrors = options.logStartupErrors ?? true;
  // Mistyped values would make the rules below misread them: report what reading found first.
  if (configuration.problems.some((problem) => problem.severity === 'error')) {
    report(
      logger,
      [...configuration.problems, ...checkUnknownKeys(settings, configuration.unknownKeys)],
      logStartupErrors,
    );
  }
  const publicOrigin = resolvePublicOrigin(settings, environment, configuration.listen);
  report(
    logger,
    [
      ...configuration.problems,
      ...checkSettings(settings, {
        environment,
        unknownKeys: configuration.unknownKeys,
        providers: options.providers,
        isRoutedPath,
        // Asked only of a start that would use it: loading node:sqlite is its first use.
        ...(usesEmbeddedDirectoryStore(settings)
          ? { embeddedDirectoryStore: (await loadNodeSqlite()) !== undefined }
          : {}),
      }),
      ...(publicOrigin.problem ? [publicOrigin.problem] : []),
      ...stepUpProblems(
        settings.Authorization.StepUp,
        // The policies without their configured step-up: those are what the rules check.
        applicationPolicies({ ...settings.Authorization, StepUp: {} })
          .list()
          .map((policy) => policy.name),
      ),
      ...authnContextMethodProblems(settings.Authentication.AuthnContextClassMethods),
    ],
    logStartupErrors,
  );
  return {
    settings,
    environment,
    rootDir: options.rootDir,
    providers: options.providers,
    publicOrigin: publicOrigin.value,
    listenOn: configuration.listen,
    logger,
    holdSecrets: (owner, values) => logger.holdSecrets(owner, values),
    addLogContext: (fields) => logger.addContextFields(fields),
    telemetry: telemetryConfiguration(settings.Telemetry, options.env, () => applicationIdentity(options.rootDir)),
    destination,
    schema,
    logStartupErrors,
  };
}

/** Logs every problem (errors only when `logErrors`); throws when one is an error. */
export function report(logger: Logger, problems: readonly SettingsProblem[], logErrors: boolean): void {
  for (const problem of problems) {
    if (problem.severity === 'error' && logErrors) logger.error({ key: problem.key }, formatProblem(problem));
    if (problem.severity !== 'error') logger.warn({ key: problem.key }, formatProblem(problem));
  }
  if (problems.some((p) => p.severity === 'error')) throw new StartupError([...problems]);
}
