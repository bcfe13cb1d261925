import { LocalCluster } from '../local-redis/local-cluster.js';

/** The Redis Cluster the Cluster row runs against, or why the row is skipped. */
export type BenchCluster = { cluster: LocalCluster; skip?: undefined } | { cluster?: undefined; skip: string };

/**
 * Starts a local Redis Cluster (three primaries, three replicas on free loopback ports:
 * scripts/local-redis/) for the Cluster row, once for every round, as a deployment
 * would keep it. Called before the bench pins itself to the load core, so the nodes run
 * wherever the machine puts them, as the single Redis does. Without redis-server and
 * redis-cli the row is skipped, not the bench failed.
 */
export async function startBenchCluster(): Promise<BenchCluster> {
  try {
    return { cluster: await LocalCluster.start() };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { skip: `no local Redis Cluster (${reason})` };
  }
}
