import type { CommitBuild } from './build-commit.js';

/**
 * The throughput rows of `npm run bench`: two references (bare Koa; bare Koa with
 * koa-session alone, the floor the session middleware sets) and Gatehouse's own paths,
 * each a server process of its own with the request it is loaded with.
 */
export interface RowDefinition {
  key:
    | 'bare'
    | 'koa-session'
    | 'memory'
    | 'memory-at'
    | 'telemetry'
    | 'telemetry-sampled'
    | 'telemetry-metrics'
    | 'connections'
    | 'redis'
    | 'redis-at'
    | 'cluster'
    | 'anonymous'
    | 'challenge'
    | 'challenge-at'
    | 'frontchannel';
  name: string;
  script: string;
  env: Record<string, string>;
  path: string;
  headers: Record<string, string>;
  expectedStatus: number;
  /** Sends the signed-in session cookie (and checks that the path refuses a request without it). */
  authenticated: boolean;
  /** Where a 302 must point, to prove the row measures what it names. */
  redirectsTo?: string;
  /** What a 200 must say, for a row that is not the app-info JSON. */
  bodyContains?: string;
  skip?: string;
}

export const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * The production posture: TLS ends at a proxy Gatehouse trusts (production requires
 * TrustProxy), so the load generator's requests say they arrived over https, as the
 * proxy's would. A loopback PublicOrigin is accepted in production.
 */
export const productionEnv: Record<string, string> = {
  NODE_ENV: 'production',
  ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1',
  ProjectTemplate__Hosting__TrustProxy: 'true',
  ProjectTemplate__Logging__Level: 'info',
};
const behindProxy = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };

/**
 * `cluster`: the seed nodes of the local Redis Cluster the Cluster row runs against, or
 * why it has none. `connectionsFolder`: the folder of 1,000 connections (SAML2 and OpenID
 * Connect, scripts/bench/connection-folder.ts) the connections row runs with. `discovery`:
 * the OpenID provider's discovery the front-channel row reads its issuer from
 * (discovery-server.ts), or why it has none.
 */
export function rowDefinitions(
  redisReachable: boolean,
  cluster: { seeds: string[] } | { skip: string },
  connectionsFolder: string,
  discovery: { issuer: string; caFile: string } | { skip: string } = { skip: 'not asked for' },
  otlpSink: { url: string } | { skip: string } = { skip: 'not asked for' },
  compare?: CommitBuild,
): RowDefinition[] {
  const memoryStore = { ...productionEnv, ProjectTemplate__Session__Store: 'Memory' };
  const seeds = 'seeds' in cluster ? cluster.seeds : [];
  const rows: RowDefinition[] = [
    {
      key: 'bare',
      name: 'bare Koa + @koa/router (reference)',
      script: 'scripts/bench/bare-koa-server.ts',
      env: {},
      path: '/api/app-info',
      headers: {},
      expectedStatus: 200,
      authenticated: false,
    },
    {
      key: 'koa-session',
      name: 'bare Koa + koa-session alone, same record (floor)',
      script: 'scripts/bench/koa-session-server.ts',
      env: {},
      path: '/api/app-info',
      headers: {},
      expectedStatus: 200,
      authenticated: true,
    },
    {
      key: 'memory',
      name: 'Gatehouse, memory store, authenticated',
      script: 'scripts/bench/gatehouse-server.ts',
      env: memoryStore,
      path: '/api/app-info',
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: true,
    },
    {
      // The memory row's request with telemetry on: metrics and a trace of every request
      // (sampled at 100%: a server span; the memory store's calls get none) exported over OTLP/HTTP to an
      // endpoint that drops them (otlp-sink.ts), metrics every second rather than every minute.
      key: 'telemetry',
      name: 'Gatehouse, memory store, authenticated, telemetry on (100% traces, OTLP)',
      script: 'scripts/bench/gatehouse-server.ts',
      env: {
        ...memoryStore,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'url' in otlpSink ? otlpSink.url : '',
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_METRIC_EXPORT_INTERVAL: '1000',
      },
      path: '/api/app-info',
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: true,
      skip: 'skip' in otlpSink ? otlpSink.skip : undefined,
    },
    {
      // The same with one trace in ten recorded, as a busy deployment would sample.
      key: 'telemetry-sampled',
      name: 'Gatehouse, memory store, authenticated, telemetry on (10% of traces, OTLP)',
      script: 'scripts/bench/gatehouse-server.ts',
      env: {
        ...memoryStore,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'url' in otlpSink ? otlpSink.url : '',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
        OTEL_METRIC_EXPORT_INTERVAL: '1000',
      },
      path: '/api/app-info',
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: true,
      skip: 'skip' in otlpSink ? otlpSink.skip : undefined,
    },
    {
      // Metrics only, read by a Prometheus scrape rather than pushed: no span, no context kept across awaits.
      key: 'telemetry-metrics',
      name: 'Gatehouse, memory store, authenticated, telemetry on, metrics only (Prometheus)',
      script: 'scripts/bench/gatehouse-server.ts',
      env: {
        ...memoryStore,
        ProjectTemplate__Telemetry__Enabled: 'true',
        ProjectTemplate__Telemetry__Traces: 'false',
        ProjectTemplate__Telemetry__PrometheusPort: '0',
      },
      path: '/api/app-info',
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: true,
    },
    {
      // The memory row's request in a deployment with 1,000 customers' connections, none
      // of them used: what holding them costs every request (the log line's secret scrubbing
      // among them: each OpenID Connect connection brings a client secret).
      key: 'connections',
      name: 'Gatehouse, memory store, authenticated, 1,000 connections',
      script: 'scripts/bench/gatehouse-server.ts',
      env: { ...memoryStore, ProjectTemplate__Authentication__ConnectionsDirectory: connectionsFolder },
      path: '/api/app-info',
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: true,
    },
    {
      key: 'redis',
      name: 'Gatehouse, Redis store, authenticated',
      script: 'scripts/bench/gatehouse-server.ts',
      env: {
        ...productionEnv,
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: REDIS_URL,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-bench:${process.pid}:${Date.now()}:`,
      },
      path: '/api/app-info',
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: true,
      skip: redisReachable ? undefined : `Redis not reachable at ${REDIS_URL}`,
    },
    {
      // The same signed-in request as the row above, on a Redis Cluster of three primaries
      // and three replicas (Mode=Cluster, WaitForReplica on, as in production).
      key: 'cluster',
      name: 'Gatehouse, Redis Cluster store, authenticated',
      script: 'scripts/bench/gatehouse-server.ts',
      env: {
        ...productionEnv,
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Mode: 'Cluster',
        ...Object.fromEntries(seeds.map((seed, index) => [`ProjectTemplate__Session__Redis__Nodes__${index}`, seed])),
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-bench:${process.pid}:${Date.now()}:`,
      },
      path: '/api/app-info',
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: true,
      skip: 'skip' in cluster ? cluster.skip : undefined,
    },
    {
      key: 'anonymous',
      name: 'Gatehouse, anonymous GET / (302 to login)',
      script: 'scripts/bench/gatehouse-server.ts',
      env: memoryStore,
      path: '/',
      headers: behindProxy,
      expectedStatus: 302,
      authenticated: false,
      redirectsTo: '/Account/Login',
    },
    {
      // What a flood of anonymous challenges costs: a flow record, the per-client count
      // (limit lifted here), the provider's authorization URL. GitHub's handler needs no
      // discovery, so the row measures Gatehouse, not a provider.
      key: 'challenge',
      name: 'Gatehouse, anonymous challenge (302 to the provider)',
      script: 'scripts/bench/gatehouse-server.ts',
      env: {
        ...memoryStore,
        ProjectTemplate__Session__PendingSignInsPerClient: '1000000000',
        ProjectTemplate__Authentication__Providers__Social3__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Social3__ClientId: 'bench-client',
        ProjectTemplate__Authentication__Providers__Social3__ClientSecret: 'bench-client-secret-not-used',
      },
      path: '/External/Challenge?provider=Social3&returnUrl=%2Fapi%2Fapp-info',
      headers: behindProxy,
      expectedStatus: 302,
      authenticated: false,
      redirectsTo: 'https://github.com/login/oauth/authorize',
    },
    {
      // What a flood of front-channel logouts naming no session costs: anyone can send
      // them (OpenID Connect Front-Channel Logout has no signature), each is an index
      // lookup and the page built once; no write, no audit event.
      key: 'frontchannel',
      name: 'Gatehouse, anonymous front-channel logout, unknown sid (200)',
      script: 'scripts/bench/gatehouse-server.ts',
      env:
        'issuer' in discovery
          ? {
              ...memoryStore,
              NODE_EXTRA_CA_CERTS: discovery.caFile,
              ProjectTemplate__Authentication__Providers__OpenIdConnect__Enabled: 'true',
              ProjectTemplate__Authentication__Providers__OpenIdConnect__Authority: discovery.issuer,
              ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId: 'bench-client',
              ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret: 'bench-client-secret-not-used',
            }
          : memoryStore,
      path: `/frontchannel-logout-oidc?${new URLSearchParams({
        iss: 'issuer' in discovery ? discovery.issuer : '',
        sid: 'bench-no-such-provider-session',
      })}`,
      headers: behindProxy,
      expectedStatus: 200,
      authenticated: false,
      bodyContains: 'Signed out',
      skip: 'skip' in discovery ? discovery.skip : undefined,
    },
  ];
  return compare ? rows.flatMap((row) => [row, ...atCommit(row, compare)]) : rows;
}

/** The rows a build of another commit serves once more: the performance gate's request paths and Redis. */
const COMPARED_ROWS = new Set(['memory', 'redis', 'challenge']);

/**
 * The memory, Redis and challenge rows once more, served by a build of another commit
 * (BENCH_COMPARE, build-commit.ts) through this checkout's bench server: a before/after
 * in the same rounds, where the machine's drift between minutes cancels out.
 */
function atCommit(row: RowDefinition, build: CommitBuild): RowDefinition[] {
  if (!COMPARED_ROWS.has(row.key)) return [];
  return [
    {
      ...row,
      key: `${row.key as 'memory' | 'redis' | 'challenge'}-at`,
      name: `${row.name}, at ${build.commit}`,
      env: {
        ...row.env,
        BENCH_DIST: build.dist,
        ...(row.env.ProjectTemplate__Session__Redis__KeyPrefix
          ? {
              ProjectTemplate__Session__Redis__KeyPrefix: `${row.env.ProjectTemplate__Session__Redis__KeyPrefix}${build.commit}:`,
            }
          : {}),
      },
    },
  ];
}
