import { inject, injectable } from 'tsyringe';
import { HealthChecksToken, type HealthCheck, type HealthStatus } from '../ports/health-check.js';
import { DrainState } from '../drain-state.js';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, HealthStatus>;
}

/** Readiness: every required dependency is up and the process is not draining. */
@injectable()
export class CheckReadiness {
  constructor(
    @inject(HealthChecksToken) private readonly checks: HealthCheck[],
    @inject(DrainState) private readonly drain: DrainState,
  ) {}

  async execute(): Promise<ReadinessReport> {
    const results = await Promise.all(this.checks.map(async (check) => [check, await safely(check)] as const));
    const checks: Record<string, HealthStatus> = {};
    for (const [check, status] of results) checks[check.name] = status;
    const dependenciesUp = results.every(([check, status]) => !check.required || status === 'up');
    return { ready: dependenciesUp && !this.drain.draining, checks };
  }
}

async function safely(check: HealthCheck): Promise<HealthStatus> {
  try {
    return await check.check();
  } catch {
    return 'down';
  }
}
