import { inject, injectable } from 'tsyringe';
import { HealthChecksToken, type HealthCheck, type HealthStatus } from '../ports/health-check.js';
import { DrainState } from '../drain-state.js';
import type { ConnectionStatus } from '../connections/connection-adapters.js';
import type { IdentityProviders } from '../identity-providers.js';
import { IdentityProvidersToken } from '../ports/identity-provider.js';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, HealthStatus>;
  /** Each connection's state, by name, where connections are on; never affects `ready`. */
  connections?: Record<string, ConnectionStatus>;
}

/** Readiness: every required dependency is up and the process is not draining. */
@injectable()
export class CheckReadiness {
  constructor(
    @inject(HealthChecksToken) private readonly checks: HealthCheck[],
    @inject(DrainState) private readonly drain: DrainState,
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
  ) {}

  async execute(): Promise<ReadinessReport> {
    const results = await Promise.all(this.checks.map(async (check) => [check, await safely(check)] as const));
    const checks: Record<string, HealthStatus> = {};
    for (const [check, status] of results) checks[check.name] = status;
    const dependenciesUp = results.every(([check, status]) => !check.required || status === 'up');
    const connections = await this.providers.connectionReport();
    return { ready: dependenciesUp && !this.drain.draining, checks, ...(connections ? { connections } : {}) };
  }
}

async function safely(check: HealthCheck): Promise<HealthStatus> {
  try {
    return await check.check();
  } catch {
    return 'down';
  }
}
