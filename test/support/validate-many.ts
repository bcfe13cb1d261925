/**
 * Run as its own process by the schema-validator test (`node --expose-gc`): validates N
 * signed responses (every tenth of them schema-invalid) with the libxml2 validator, after
 * a warm-up, then prints one JSON line: the WebAssembly heap's size before and after (the
 * memory of libxml2's own module, read from the module itself), the resident memory's
 * growth, the process-wide listeners before and after, and the count refused. Anything
 * else the process prints (a library writing to the console) is what the test catches.
 */
import { join } from 'node:path';
import { assertionXml, responseXml, signElement } from '../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../scripts/saml/signing-credential.js';
import { findProjectRoot } from '../../src/bootstrap/project-root.js';

const count = Number(process.argv[2] ?? 10_000);
const warmUp = 2_000;
const sentinel = process.argv[3] ?? 'SENTINEL';
const gc = globalThis.gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

// libxml2-wasm keeps its WebAssembly instance to itself: its memory is noted as it is
// instantiated, when the validator's module is first imported (below, not before).
const memories: WebAssembly.Memory[] = [];
const instantiate = WebAssembly.instantiate.bind(WebAssembly);
WebAssembly.instantiate = (async (...args: Parameters<typeof instantiate>) => {
  const result = (await instantiate(...args)) as WebAssembly.Instance | WebAssembly.WebAssemblyInstantiatedSource;
  const instance = 'instance' in result ? result.instance : result;
  for (const exported of Object.values(instance.exports)) {
    if (exported instanceof WebAssembly.Memory) memories.push(exported);
  }
  return result;
}) as typeof WebAssembly.instantiate;
const { Libxml2SchemaValidator } = await import('../../src/adapters/saml/libxml2-schema-validator.js');
const [memory] = memories;
if (memories.length !== 1 || !memory) throw new Error(`expected one WebAssembly memory, saw ${memories.length}`);

const credential = makeSigningCredential();
const documents = Array.from({ length: 20 }, (_, i) =>
  responseXml(
    { issuer: 'https://idp.example', destination: 'https://sp.example/acs', inResponseTo: `_r${i}` },
    signElement(
      assertionXml({
        issuer: 'https://idp.example',
        nameId: `${sentinel}-${i}`,
        audiences: ['https://sp.example'],
        recipient: 'https://sp.example/acs',
        inResponseTo: `_r${i}`,
        attributes: { 'urn:oid:2.5.4.42': [sentinel], 'http://schemas.xmlsoap.org/claims/Group': ['a', 'b', 'c'] },
      }),
      'Assertion',
      { credential },
    ),
  ),
);
const invalid = (documents[0] ?? '').replace('<samlp:Status>', `<samlp:${sentinel}/><samlp:Status>`);
const validator = new Libxml2SchemaValidator(join(findProjectRoot(), 'schemas', 'saml2'));
const listeners = () => process.listenerCount('uncaughtException') + process.listenerCount('unhandledRejection');

let refused = 0;
async function validateRange(from: number, to: number): Promise<void> {
  for (let index = from; index < to; index += 1) {
    // A turn of the event loop now and then, as a server has between requests: V8 keeps the
    // target of a WeakRef (libxml2-wasm holds one per document) alive until the current job
    // ends, which a loop of awaits alone never does.
    if (index % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    const xml = index % 10 === 0 ? invalid : (documents[index % 20] ?? '');
    await validator.validate(xml).catch(() => {
      refused += 1;
    });
  }
}

function settledRss(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().rss;
}

const listenersBefore = listeners();
// The warm-up: the schema compiled, the heap grown to what a validation needs, V8's
// optimizing compilers done with libxml2's and the validator's hot code.
await validateRange(0, warmUp);
refused = 0;
const heapBefore = memory.buffer.byteLength;
const rssBefore = settledRss();
await validateRange(0, count);
const heapAfter = memory.buffer.byteLength;
const rssGrowthMb = (settledRss() - rssBefore) / 1024 / 1024;
process.stdout.write(
  `${JSON.stringify({ heapBefore, heapAfter, rssGrowthMb, listenersBefore, listenersAfter: listeners(), refused })}\n`,
);
