import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { ClockToken } from '../application/ports/clock.js';
import { HealthChecksToken, type HealthCheck } from '../application/ports/health-check.js';
import { LoggerToken, type Logger } from '../application/ports/logger.js';
import { EnvironmentToken, SettingsToken } from '../application/tokens.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { DrainState } from '../application/use-cases/drain-state.js';
import { SystemClock } from '../adapters/system-clock.js';
import type { Environment, ProjectTemplateSettings } from '../domain/settings/settings.js';

export interface ContainerInputs {
  settings: ProjectTemplateSettings;
  environment: Environment;
  logger: Logger;
}

/**
 * The only place that registers anything with tsyringe. Each Gatehouse instance gets
 * its own child container, so two instances can run in one process (tests do).
 * Registering constructs nothing and opens no connection.
 */
export function buildContainer(inputs: ContainerInputs): DependencyContainer {
  const container = rootContainer.createChildContainer();
  container.registerInstance(SettingsToken, inputs.settings);
  container.registerInstance(EnvironmentToken, inputs.environment);
  container.registerInstance(LoggerToken, inputs.logger);
  container.registerInstance(ClockToken, new SystemClock());
  container.registerInstance(DrainState, new DrainState());
  const healthChecks: HealthCheck[] = [];
  container.registerInstance(HealthChecksToken, healthChecks);
  container.registerSingleton(CheckReadiness);
  return container;
}
