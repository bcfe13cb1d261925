import 'reflect-metadata';
import { loadPrettyLogLines } from '../adapters/logging/pretty-log-lines.js';
import { forcedExitDelayMs } from '../domain/settings/shutdown-timing.js';
import { flushCompileCache } from './compile-cache.js';
import { createGatehouse } from './gatehouse.js';
import { listenFailure } from './listen-failure.js';
import { noProviderHint } from './no-provider-hint.js';
import { reportUnreachableProviders } from './reachability-at-start.js';
import { dropSqliteExperimentalWarning, dropUrlParseDeprecation } from './process-warnings.js';
import { formatProblem, StartupError } from './startup-error.js';

/**
 * The process entry point: compose, listen on HOST:PORT (127.0.0.1:3000 by default),
 * and shut down gracefully on SIGTERM/SIGINT (a second signal forces the exit, and so does
 * the drain plus the time to close having passed).
 * Configuration errors are listed on stderr and the process exits 1 before listening.
 */
async function main(): Promise<void> {
  let gatehouse;
  try {
    // Only a terminal gets pretty logs; importing pino-pretty costs startup time otherwise.
    const pretty = process.stdout.isTTY ? await loadPrettyLogLines() : undefined;
    gatehouse = await createGatehouse({
      env: process.env,
      logDestination: (environment) =>
        environment === 'development' && process.stdout.isTTY && pretty ? pretty() : undefined,
      // At a terminal the problems are printed below as text, once; a log collector gets them as lines too.
      logStartupErrors: !process.stdout.isTTY,
    });
  } catch (error) {
    if (error instanceof StartupError) {
      process.stderr.write(`${error.message}\n${error.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { port, host } = gatehouse.listenOn;
  let server;
  try {
    server = await gatehouse.listen(port, host);
  } catch (error) {
    const failure = listenFailure(error, host, port);
    if (!failure) throw error;
    process.stderr.write(`Gatehouse cannot start: ${failure}\n`);
    process.exit(1);
  }
  const address = server.address();
  const url =
    typeof address === 'object' && address
      ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
      : `${host}:${port}`;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      gatehouse.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    // The drain keeps a replica serving while a load balancer notices it is leaving: it
    // protects requests in production. Ctrl+C at a developer's terminal stops at once, so
    // the next start finds the port free.
    const drain = !(signal === 'SIGINT' && gatehouse.environment === 'development');
    // Due after the drain and the time to close, never with the drain's own end: a timer
    // due then would cut the closing short (ShutdownDrainSeconds=25 once exited 1 at 25 s).
    const forcedExitAfterMs = forcedExitDelayMs(gatehouse.settings.Hosting);
    setTimeout(() => {
      gatehouse.logger.error({ forcedExitAfterMs }, 'shutdown did not finish in time: exiting now');
      process.exit(1);
    }, forcedExitAfterMs).unref();
    const stopped = gatehouse.shutdown({ drain }); // readiness answers 503 from here on
    gatehouse.logger.info({ signal, forcedExitAfterMs }, drain ? 'shutting down: draining' : 'shutting down');
    gatehouse.flushLog(); // at once, as the "listening" line: whoever watches sees the drain begin
    stopped.then(
      () => {
        gatehouse.logger.info({}, 'stopped');
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // The code the start compiled, on disk before the line shows: the next start reads it back
  // even if this process is then killed (start.ts turned the cache on; a no-op without it).
  flushCompileCache();
  // Only now: a SIGTERM sent as soon as this line shows would otherwise find no handler
  // and kill the process outright, without draining or closing the stores.
  gatehouse.logger.info({ url, environment: gatehouse.environment }, `Gatehouse listening on ${url}`);
  const hint = noProviderHint(
    gatehouse.settings.Authentication.Enabled,
    gatehouse.identityProviders.length,
    gatehouse.environment,
  );
  if (hint) gatehouse.logger.warn({}, hint);
  gatehouse.flushLog();
  void reportUnreachableProviders(gatehouse.environment, gatehouse.identityProviders, gatehouse.logger).then(() =>
    gatehouse.flushLog(),
  );
}

dropUrlParseDeprecation();
dropSqliteExperimentalWarning();
void main();
