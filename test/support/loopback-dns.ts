import dns2, { type DnsServer } from 'dns2';

const { Packet } = dns2;

/** How the loopback server answers for one name. */
export type LoopbackAnswer =
  /** TXT records, each given as its character-strings (chunks of at most 255 bytes). */
  | { txt: string[][] }
  /** An alias: the server follows it, as a recursive resolver does, and answers the chain. */
  | { cname: string }
  /** The server itself failed (RCODE 2). */
  | { servfail: true }
  /** No answer at all: the query is dropped, the way an overloaded or filtered server does. */
  | { silent: true };

const NXDOMAIN = 3;
const SERVFAIL = 2;
const LONGEST_CHAIN = 8;
/** A real record's time to live, so that a resolver that caches would be caught serving stale answers. */
const TTL = 300;

/**
 * A real DNS server on a loopback UDP port (dns2), with the records each test sets. A name
 * no test set is NXDOMAIN; `{ txt: [] }` is a name with no TXT record (NODATA).
 */
export class LoopbackDns {
  private readonly names = new Map<string, LoopbackAnswer>();
  private silentForAll = false;
  /** The names asked for, in order, as the server received them. */
  readonly asked: string[] = [];

  private constructor(
    private readonly server: DnsServer,
    /** `127.0.0.1:<port>`, as `Resolver.setServers` takes it. */
    readonly address: string,
  ) {}

  static async start(): Promise<LoopbackDns> {
    let dns: LoopbackDns | undefined;
    const server = dns2.createServer({
      udp: true,
      handle: (request, send) => dns?.answer(request, send),
    });
    const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    const port = addresses.udp?.port;
    if (port === undefined) throw new Error('the loopback DNS server did not listen on UDP');
    dns = new LoopbackDns(server, `127.0.0.1:${port}`);
    return dns;
  }

  /** Sets how `name` is answered from now on. */
  set(name: string, answer: LoopbackAnswer): void {
    this.names.set(name.toLowerCase(), answer);
  }

  /** Forgets `name`: it is NXDOMAIN again. */
  remove(name: string): void {
    this.names.delete(name.toLowerCase());
  }

  /** From now on every query goes unanswered. */
  neverAnswer(): void {
    this.silentForAll = true;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private answer(request: dns2.Packet, send: (response: dns2.Packet) => Promise<Buffer>): void {
    const [question] = request.questions;
    if (question === undefined) return;
    this.asked.push(question.name);
    const first = this.names.get(question.name.toLowerCase());
    if (this.silentForAll || (first !== undefined && 'silent' in first)) return;
    const response = Packet.createResponseFromRequest(request);
    let name = question.name;
    for (let step = 0; step <= LONGEST_CHAIN; step += 1) {
      const found = this.names.get(name.toLowerCase());
      if (found === undefined) {
        // RFC 6604: the RCODE of a chain is the one of its last name.
        response.header.rcode = NXDOMAIN;
        break;
      }
      if ('servfail' in found || 'silent' in found) {
        response.header.rcode = SERVFAIL;
        break;
      }
      if ('cname' in found) {
        response.answers.push(record(name, Packet.TYPE.CNAME, { domain: found.cname }));
        name = found.cname;
        continue;
      }
      if (question.type === Packet.TYPE.TXT) {
        for (const data of found.txt) {
          response.answers.push(record(name, Packet.TYPE.TXT, { data }));
        }
      }
      break;
    }
    void send(response);
  }
}

function record(name: string, type: number, rdata: Partial<dns2.Packet.Resource>): dns2.Packet.Resource {
  return new Packet.Resource({ name, type, class: Packet.CLASS.IN, ttl: TTL, ...rdata });
}
