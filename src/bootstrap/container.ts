import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DrainState } from '../application/drain-state.js';
import { ClockToken, type Clock } from '../application/ports/clock.js';
import { GovernanceToken, type Governance } from '../application/ports/governance.js';
import { HealthChecksToken, type HealthCheck } from '../application/ports/health-check.js';
import { IdentityProvidersToken, type IdentityProvider } from '../application/ports/identity-provider.js';
import { LoggerToken, type Logger } from '../application/ports/logger.js';
import { PendingSignInStoreToken, SessionStoreToken, type SessionStore } from '../application/ports/session-store.js';
import { SettingsToken } from '../application/settings-token.js';
import { FlowRecords } from '../application/sign-in/flow-records.js';
import { SavedTokens } from '../application/sign-in/saved-tokens.js';
import { SignInRecords } from '../application/sign-in/sign-in-records.js';
import { AuthenticateSession } from '../application/use-cases/authenticate-session.js';
import { BeginSignIn } from '../application/use-cases/begin-sign-in.js';
import { CheckReadiness } from '../application/use-cases/check-readiness.js';
import { CompleteSignIn } from '../application/use-cases/complete-sign-in.js';
import { RefreshTokens } from '../application/use-cases/refresh-tokens.js';
import { SignOut } from '../application/use-cases/sign-out.js';
import { AllowAllGovernance } from '../adapters/governance/allow-all-governance.js';
import type { ProjectTemplateSettings } from '../domain/settings/settings.js';

export interface ContainerInputs {
  settings: ProjectTemplateSettings;
  logger: Logger;
  clock: Clock;
  sessionStore: SessionStore;
  pendingSignInStore: SessionStore;
  identityProviders: IdentityProvider[];
  healthChecks: HealthCheck[];
  governance?: Governance;
}

/**
 * The only place that registers anything with tsyringe. Each Gatehouse instance gets
 * its own child container, so two instances can run in one process (tests do).
 * Adapters arrive constructed (constructing opens no connection); the application's
 * services and use cases are resolved from their `@inject` tokens, one per instance.
 */
export function buildContainer(inputs: ContainerInputs): DependencyContainer {
  const container = rootContainer.createChildContainer();
  container.registerInstance(SettingsToken, inputs.settings);
  container.registerInstance(LoggerToken, inputs.logger);
  container.registerInstance(ClockToken, inputs.clock);
  container.registerInstance(SessionStoreToken, inputs.sessionStore);
  container.registerInstance(PendingSignInStoreToken, inputs.pendingSignInStore);
  container.registerInstance(IdentityProvidersToken, inputs.identityProviders);
  container.registerInstance(HealthChecksToken, inputs.healthChecks);
  container.registerInstance(GovernanceToken, inputs.governance ?? new AllowAllGovernance());
  container.registerInstance(DrainState, new DrainState());
  container.registerSingleton(FlowRecords);
  container.registerSingleton(SignInRecords);
  container.registerSingleton(SavedTokens);
  container.registerSingleton(RefreshTokens);
  container.registerSingleton(CheckReadiness);
  container.registerSingleton(BeginSignIn);
  container.registerSingleton(CompleteSignIn);
  container.registerSingleton(SignOut);
  container.registerSingleton(AuthenticateSession);
  return container;
}
