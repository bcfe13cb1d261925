import net from 'node:net';

/**
 * A TCP relay between a client under test and a real server, to simulate outages
 * without touching the server: `close()` is a server that went away (connections
 * reset, nothing listening), `pause()` one that stops answering while connections stay
 * open. `open()` listens again on the same port, so the client can reconnect unchanged.
 */
export class TcpProxy {
  private readonly server = net.createServer((client) => this.relay(client));
  private readonly sockets = new Set<net.Socket>();
  private paused = false;
  private listeningPort = 0;
  /** Connections accepted since the proxy started. */
  accepted = 0;
  /** The client-side port of each connection accepted, in the order they were accepted. */
  readonly clientPorts: number[] = [];
  private readonly onAccept = new Set<() => void>();

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.open();
    return proxy;
  }

  get port(): number {
    return this.listeningPort;
  }

  /** Listens on port 0 the first time, then on the same port again. */
  async open(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.listeningPort, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('The proxy has no TCP address.');
    this.listeningPort = address.port;
  }

  /** Resets every relayed connection and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Stops relaying bytes in both directions; connections stay open and bytes wait. */
  pause(): void {
    this.paused = true;
    for (const socket of this.sockets) socket.pause();
  }

  resume(): void {
    this.paused = false;
    for (const socket of this.sockets) socket.resume();
  }

  /** Resolves once the connection from this client-side port has been accepted. */
  acceptedFrom(clientPort: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!this.clientPorts.includes(clientPort)) return;
        this.onAccept.delete(check);
        resolve();
      };
      this.onAccept.add(check);
      check();
    });
  }

  private relay(client: net.Socket): void {
    this.accepted += 1;
    this.clientPorts.push(client.remotePort ?? -1);
    for (const check of [...this.onAccept]) check();
    const upstream = net.connect(this.target.port, this.target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      // Written by hand rather than piped: pipe() resumes a source on 'drain' and would
      // undo pause().
      from.on('data', (chunk) => to.write(chunk));
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
      if (this.paused) from.pause();
    }
  }
}
