import { expect } from 'chai';
import { clientKeyOf, isLoopbackClient } from '../../../src/domain/client-key.js';

/** The key a client's anonymous work is counted under: an IPv4 address, or an IPv6 network. */
describe('clientKeyOf', () => {
  const cases: ReadonlyArray<[label: string, address: string, prefix: number, key: string]> = [
    ['an IPv4 address is itself', '203.0.113.7', 64, 'ip4:203.0.113.7'],
    ['an IPv4-mapped IPv6 address is the IPv4 client', '::ffff:203.0.113.7', 64, 'ip4:203.0.113.7'],
    ['... in hexadecimal too', '::FFFF:cb00:7107', 64, 'ip4:203.0.113.7'],
    ['an IPv6 address is its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64, 'ip6:2001:db8:1:2:0:0:0:0/64'],
    ['another address of that /64 is the same client', '2001:DB8:1:2::1', 64, 'ip6:2001:db8:1:2:0:0:0:0/64'],
    ['the next /64 is another client', '2001:db8:1:3::1', 64, 'ip6:2001:db8:1:3:0:0:0:0/64'],
    ['a zone is no part of the address', 'fe80::1%eth0', 64, 'ip6:fe80:0:0:0:0:0:0:0/64'],
    ['brackets are no part of the address', '[2001:db8::5]', 64, 'ip6:2001:db8:0:0:0:0:0:0/64'],
    ['a /56 keeps 56 bits', '2001:db8:1:2ff::1', 56, 'ip6:2001:db8:1:200:0:0:0:0/56'],
    ['a /128 is each address', '2001:db8::1:2', 128, 'ip6:2001:db8:0:0:0:0:1:2/128'],
    ['loopback', '::1', 64, 'ip6:0:0:0:0:0:0:0:0/64'],
    ['an IPv4 part at the end of a non-mapped address', '64:ff9b::198.51.100.1', 96, 'ip6:64:ff9b:0:0:0:0:0:0/96'],
    ['an unreadable address counts as itself', 'not-an-address', 64, 'other:not-an-address'],
    ['two "::" is unreadable', '2001::1::2', 64, 'other:2001::1::2'],
    ['an octet past 255 is unreadable', '203.0.113.300', 64, 'other:203.0.113.300'],
    ['nine words are unreadable', '1:2:3:4:5:6:7:8:9', 64, 'other:1:2:3:4:5:6:7:8:9'],
    ['a long unreadable text is cut short', 'x'.repeat(500), 64, `other:${'x'.repeat(64)}`],
  ];
  for (const [label, address, prefix, key] of cases) {
    it(`${label}: ${address.slice(0, 40)} /${prefix}`, () => {
      expect(clientKeyOf(address, prefix)).to.equal(key);
    });
  }
});

describe('isLoopbackClient', () => {
  const cases: ReadonlyArray<[address: string, loopback: boolean]> = [
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::2', false],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['2001:db8::1', false],
    ['localhost', false],
  ];
  for (const [address, loopback] of cases) {
    it(`${address}: ${loopback}`, () => expect(isLoopbackClient(address)).to.equal(loopback));
  }
});
