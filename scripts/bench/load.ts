import autocannon, { type AutocannonResult } from 'autocannon';

export interface LoadSettings {
  connections: number;
  pipelining: number;
  warmupSeconds: number;
  measureSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  warmupRequests: number;
  /** Every response must carry the expected status: a benchmark of error pages measures nothing. */
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Share of one core the server used while measured (1 = saturated), when known. */
  serverCpu?: number;
  /** Server CPU time per request, microseconds, when known. */
  serverCpuMicrosPerRequest?: number;
}

/** Warm-up (discarded), then the measured run, both against one URL with fixed headers. */
export async function measureLoad(
  url: string,
  headers: Record<string, string>,
  expectedStatus: number,
  settings: LoadSettings,
  serverCpuSeconds: () => number | undefined = () => undefined,
): Promise<LoadResult> {
  const options = { url, headers, connections: settings.connections, pipelining: settings.pipelining };
  const warmup = await autocannon({ ...options, duration: settings.warmupSeconds });
  checkStatuses(warmup, expectedStatus, 'warm-up');
  const cpuBefore = serverCpuSeconds();
  const started = performance.now();
  const result = await autocannon({ ...options, duration: settings.measureSeconds });
  const elapsedSeconds = (performance.now() - started) / 1000;
  const cpuAfter = serverCpuSeconds();
  checkStatuses(result, expectedStatus, 'measurement');
  const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    warmupRequests: warmup.requests.total,
    statusCounts: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
    ),
    errors: result.errors,
    timeouts: result.timeouts,
    ...(cpu === undefined
      ? {}
      : {
          serverCpu: Math.round((cpu / elapsedSeconds) * 100) / 100,
          serverCpuMicrosPerRequest: Math.round((cpu * 1e6) / Math.max(1, result.requests.total)),
        }),
  };
}

export function checkStatuses(result: AutocannonResult, expectedStatus: number, phase: string): void {
  const unexpected = Object.entries(result.statusCodeStats).filter(([status]) => Number(status) !== expectedStatus);
  if (unexpected.length > 0 || result.errors > 0 || result.timeouts > 0) {
    const statuses = unexpected.map(([status, { count }]) => `${count} x ${status}`).join(', ');
    throw new Error(
      `${phase}: expected only ${expectedStatus}; got ${statuses || 'no other status'}, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
}
