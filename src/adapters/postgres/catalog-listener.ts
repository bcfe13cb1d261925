import pg from 'pg';
import { CONNECT_TIMEOUT_MS, QUERY_TIMEOUT_MS } from './catalog-pool.js';

/** The channel the migration's triggers notify with a connection's id (migrations/0001_connection-catalog.sql). */
export const CATALOG_CHANNEL = 'gatehouse_connections';

/**
 * How often the listening connection is asked `SELECT 1`: a connection cut without a word
 * (a firewall dropping it, a host gone) sends no notification and no error, and would
 * otherwise be noticed only by TCP keep-alive, minutes later.
 */
const HEARTBEAT_MS = 10_000;

export interface ListenerEvents {
  /** Listening (again): notifications sent before now may have been missed, so the caller reads everything again. */
  listening(): void;
  /** A notification's payload: a connection id, or `TRUNCATE`. */
  notified(payload: string): void;
  /** The connection is lost (or could not be made); the listener tries again after `reconnectMs`. */
  lost(error: unknown): void;
}

/** Which channel a listener listens on, and the name its connection shows the server. */
export interface ListenerChannel {
  channel: string;
  applicationName: string;
}

const CATALOG_LISTENING: ListenerChannel = {
  channel: CATALOG_CHANNEL,
  applicationName: 'gatehouse-catalog-listener',
};

/**
 * One dedicated connection that LISTENs on a channel (the catalog's unless told another:
 * the directory store's feed has its own), for as long as it is not stopped: a connection
 * lost, or one that cannot be made, is tried again every `reconnectMs`. Every 'error' of its
 * client is handled here (an unhandled one would end the process), and none is thrown.
 */
export class CatalogListener {
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    private readonly connectionString: string,
    private readonly reconnectMs: number,
    private readonly events: ListenerEvents,
    private readonly subscription: ListenerChannel = CATALOG_LISTENING,
  ) {}

  start(): void {
    this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #connect(): void {
    if (this.#stopped) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
      application_name: this.subscription.applicationName,
    });
    this.#client = client;
    let lost = false;
    const onLost = (error: unknown) => {
      if (lost) return;
      lost = true;
      clearInterval(this.#heartbeat);
      client.removeAllListeners('notification');
      client.end().catch(() => undefined);
      if (this.#client === client) this.#client = undefined;
      if (this.#stopped) return;
      this.events.lost(error);
      this.#retry = setTimeout(() => this.#connect(), this.reconnectMs);
      this.#retry.unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (message.channel === this.subscription.channel && message.payload !== undefined)
        this.events.notified(message.payload);
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${this.subscription.channel}`))
      .then(() => {
        if (lost || this.#stopped) return;
        this.#heartbeat = setInterval(() => client.query('SELECT 1').catch(onLost), HEARTBEAT_MS);
        this.#heartbeat.unref();
        this.events.listening();
      })
      .catch(onLost);
  }
}
