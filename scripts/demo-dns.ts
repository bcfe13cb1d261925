/**
 * The DNS server of `npm run demo`: the demo's domains (`initech.test` ...) are nobody's on
 * the internet, so the administration API's domain checks ask this server instead
 * (`Administration:DnsServers`). It answers TXT records from what was published to it, and
 * NXDOMAIN for any other name, on a loopback UDP port (dns2, a devDependency). A person
 * publishes a record with one `curl` to its control port, also on loopback:
 *
 *     curl -X POST http://127.0.0.1:<port>/records -d name=_gatehouse-challenge.initech.test -d value=...
 *
 * `GET /records` lists what is published. Development only: nothing in src/ imports it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

const NXDOMAIN = 3;
/** Short, so that a record published again is seen again at once by a resolver that caches. */
const TTL = 5;
/** A form body this large holds any record a person publishes. */
const MAX_BODY_BYTES = 4096;
/** A DNS name: labels of letters, digits, `_` and `-`, at most 253 characters. */
const NAME = /^(?=.{1,253}$)[A-Za-z0-9_-]{1,63}(?:\.[A-Za-z0-9_-]{1,63})*\.?$/;
/** One TXT character-string: printable ASCII, at most 255 bytes. */
const VALUE = /^[\x20-\x7e]{1,255}$/;

export interface DemoDns {
  /** `127.0.0.1:<port>`, as `Administration:DnsServers` takes it. */
  address: string;
  /** `http://127.0.0.1:<port>`: `POST /records` (form: name, value) publishes, `GET /records` lists. */
  controlUrl: string;
  /** Adds `value` to the TXT records of `name`. */
  publish(name: string, value: string): void;
  close(): Promise<void>;
}

export async function startDemoDns(): Promise<DemoDns> {
  const records = new Map<string, string[]>();
  const publish = (name: string, value: string) => {
    const key = name.toLowerCase().replace(/\.$/, '');
    const values = records.get(key) ?? [];
    if (!values.includes(value)) values.push(value);
    records.set(key, values);
  };
  const dns = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const [question] = request.questions;
      if (question === undefined) return;
      const response = Packet.createResponseFromRequest(request);
      const values = records.get(question.name.toLowerCase().replace(/\.$/, ''));
      if (values === undefined) response.header.rcode = NXDOMAIN;
      else if (question.type === Packet.TYPE.TXT) {
        for (const value of values)
          response.answers.push(
            new Packet.Resource({
              name: question.name,
              type: Packet.TYPE.TXT,
              class: Packet.CLASS.IN,
              ttl: TTL,
              data: [value],
            }),
          );
      }
      void send(response);
    },
  });
  const listening = await dns.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = listening.udp?.port;
  if (port === undefined) throw new Error('the demo DNS server did not listen on UDP');
  const control = createServer((request, response) => void controlRequest(request, response, records, publish));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${port}`,
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    publish,
    close: async () => {
      await dns.close();
      await closeServer(control);
    },
  };
}

async function controlRequest(
  request: IncomingMessage,
  response: ServerResponse,
  records: ReadonlyMap<string, string[]>,
  publish: (name: string, value: string) => void,
): Promise<void> {
  const answer = (status: number, text: string) => {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(`${text}\n`);
  };
  // curl sends no Origin; a page in a browser does: no web page may publish records here.
  if (request.headers.origin !== undefined) return answer(403, 'Records are published with curl, not from a page.');
  const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  if (path !== '/records') return answer(404, 'Only /records is here.');
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json' });
    return void response.end(`${JSON.stringify(Object.fromEntries(records), null, 2)}\n`);
  }
  if (request.method !== 'POST') return answer(405, 'GET or POST /records.');
  const body = await readBody(request);
  if (body === undefined) return answer(413, `A record is published with at most ${MAX_BODY_BYTES} bytes.`);
  const form = new URLSearchParams(body);
  const name = form.get('name') ?? '';
  const value = form.get('value') ?? '';
  if (!NAME.test(name) || !VALUE.test(value)) {
    return answer(400, 'Give name=<a DNS name> and value=<printable text, at most 255 characters>.');
  }
  publish(name, value);
  answer(201, `Published: ${name} TXT "${value}"`);
}

/** The body as text; undefined past MAX_BODY_BYTES. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
