import { expect } from 'chai';
import { forbiddenAddress, forbiddenHostName } from '../../../../src/adapters/outbound/forbidden-address.js';

const LOOPBACK = 'a loopback address';
const UNSPECIFIED = 'an unspecified address';
const LINK_LOCAL = 'a link-local address';
const PRIVATE = 'a private network address';
const SHARED = 'a carrier-grade NAT (shared) address';
const MULTICAST = 'a multicast address';
const RESERVED = 'a reserved or documentation address';
const CLOUD = 'a cloud instance metadata address';
const PUBLIC = undefined;

/** Each range by its first and last address, and the public addresses just outside it. */
const IPV4: Array<[string, string | undefined]> = [
  ['0.0.0.0', UNSPECIFIED],
  ['0.255.255.255', UNSPECIFIED],
  ['1.0.0.0', PUBLIC],
  ['9.255.255.255', PUBLIC],
  ['10.0.0.0', PRIVATE],
  ['10.0.0.1', PRIVATE],
  ['10.255.255.255', PRIVATE],
  ['11.0.0.0', PUBLIC],
  ['100.63.255.255', PUBLIC],
  ['100.64.0.0', SHARED],
  ['100.127.255.255', SHARED],
  ['100.128.0.0', PUBLIC],
  ['100.100.100.200', CLOUD],
  ['126.255.255.255', PUBLIC],
  ['127.0.0.0', LOOPBACK],
  ['127.0.0.1', LOOPBACK],
  ['127.255.255.255', LOOPBACK],
  ['128.0.0.0', PUBLIC],
  ['169.253.255.255', PUBLIC],
  ['169.254.0.0', LINK_LOCAL],
  ['169.254.169.254', CLOUD],
  ['169.254.170.2', CLOUD],
  ['169.254.255.255', LINK_LOCAL],
  ['169.255.0.0', PUBLIC],
  ['172.15.255.255', PUBLIC],
  ['172.16.0.0', PRIVATE],
  ['172.31.255.255', PRIVATE],
  ['172.32.0.0', PUBLIC],
  ['191.255.255.255', PUBLIC],
  ['192.0.0.0', RESERVED],
  ['192.0.0.192', CLOUD],
  ['192.0.0.255', RESERVED],
  ['192.0.1.0', PUBLIC],
  ['192.0.2.0', RESERVED],
  ['192.0.2.255', RESERVED],
  ['192.0.3.0', PUBLIC],
  ['192.88.98.255', PUBLIC],
  ['192.88.99.0', RESERVED],
  ['192.88.99.255', RESERVED],
  ['192.88.100.0', PUBLIC],
  ['192.167.255.255', PUBLIC],
  ['192.168.0.0', PRIVATE],
  ['192.168.255.255', PRIVATE],
  ['192.169.0.0', PUBLIC],
  ['198.17.255.255', PUBLIC],
  ['198.18.0.0', RESERVED],
  ['198.19.255.255', RESERVED],
  ['198.20.0.0', PUBLIC],
  ['198.51.99.255', PUBLIC],
  ['198.51.100.0', RESERVED],
  ['198.51.100.255', RESERVED],
  ['198.51.101.0', PUBLIC],
  ['203.0.112.255', PUBLIC],
  ['203.0.113.0', RESERVED],
  ['203.0.113.255', RESERVED],
  ['203.0.114.0', PUBLIC],
  ['223.255.255.255', PUBLIC],
  ['224.0.0.0', MULTICAST],
  ['239.255.255.255', MULTICAST],
  ['240.0.0.0', RESERVED],
  ['255.255.255.255', RESERVED],
  ['8.8.8.8', PUBLIC],
];

const IPV6: Array<[string, string | undefined]> = [
  ['::', UNSPECIFIED],
  ['::1', LOOPBACK],
  ['0:0:0:0:0:0:0:1', LOOPBACK],
  ['::2', UNSPECIFIED], // IPv4-compatible 0.0.0.2
  // IPv4-mapped: the IPv4 address decides, in either spelling.
  ['::ffff:127.0.0.1', LOOPBACK],
  ['::ffff:7f00:1', LOOPBACK],
  ['::FFFF:7F00:0001', LOOPBACK],
  ['::ffff:10.0.0.1', PRIVATE],
  ['::ffff:169.254.169.254', CLOUD],
  ['::ffff:a9fe:a9fe', CLOUD],
  ['::ffff:0.0.0.0', UNSPECIFIED],
  ['::ffff:8.8.8.8', PUBLIC],
  ['::fffe:7f00:1', RESERVED], // just below the mapped range: no IPv4 inside, outside global unicast
  // IPv4-compatible (deprecated): the IPv4 address decides.
  ['::127.0.0.1', LOOPBACK],
  ['::7f00:1', LOOPBACK],
  ['::192.168.1.1', PRIVATE],
  // NAT64 (RFC 6052 well-known prefix; RFC 8215 local use).
  ['64:ff9b::127.0.0.1', LOOPBACK],
  ['64:ff9b::a9fe:a9fe', CLOUD],
  ['64:ff9b::8.8.8.8', PUBLIC],
  ['64:ff9b:1::8.8.8.8', PRIVATE],
  ['64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff', RESERVED],
  // 6to4: the IPv4 address in bits 16-47 decides.
  ['2002:7f00:1::', LOOPBACK],
  ['2002:a00:1::1', PRIVATE],
  ['2002:808:808::1', PUBLIC],
  ['2001:db8::', RESERVED],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', RESERVED],
  ['2001:db9::', PUBLIC],
  ['2001::', RESERVED], // Teredo
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', RESERVED],
  ['2001:200::', PUBLIC], // just past 2001::/23
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', RESERVED], // just below global unicast
  ['2000::', PUBLIC],
  ['2606:4700:4700::1111', PUBLIC],
  ['3ffe:ffff::', PUBLIC],
  ['3fff::', RESERVED],
  ['3fff:fff::', RESERVED],
  ['3fff:1000::', PUBLIC],
  ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', PUBLIC],
  ['4000::', RESERVED], // just past global unicast
  ['5f00::', RESERVED],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', RESERVED],
  ['fc00::', PRIVATE],
  ['fd00::1', PRIVATE],
  ['fd00:ec2::254', CLOUD],
  ['fd00:ec2::253', PRIVATE],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', PRIVATE],
  ['fe00::', RESERVED],
  ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', RESERVED],
  ['fe80::', LINK_LOCAL],
  ['fe80::1%eth0', LINK_LOCAL],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', LINK_LOCAL],
  ['fec0::', PRIVATE],
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', PRIVATE],
  ['ff00::', MULTICAST],
  ['ff02::1', MULTICAST],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', MULTICAST],
];

describe('forbiddenAddress: where a fetch a connection steers may not go', () => {
  describe('IPv4', () => {
    for (const [address, expected] of IPV4) {
      it(`${address}: ${expected ?? 'allowed'}`, () => expect(forbiddenAddress(address)).to.equal(expected));
    }
  });

  describe('IPv6', () => {
    for (const [address, expected] of IPV6) {
      it(`${address}: ${expected ?? 'allowed'}`, () => expect(forbiddenAddress(address)).to.equal(expected));
    }
  });

  describe('what is not a canonical IP address is refused (fail closed)', () => {
    for (const text of [
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '127.1',
      'localhost',
      '',
      '1:2:3:4:5:6:7:8:9',
      '::ffff:999.0.0.1',
    ]) {
      it(JSON.stringify(text), () => expect(forbiddenAddress(text)).to.not.equal(undefined));
    }
  });
});

describe('forbiddenHostName: names never looked up', () => {
  const cases: Array<[string, boolean]> = [
    ['localhost', true],
    ['LOCALHOST.', true],
    ['app.localhost', true],
    ['metadata.google.internal', true],
    ['Metadata.Google.Internal.', true],
    ['metadata.goog', true],
    ['db.corp.internal', true],
    ['localhost.example.com', false],
    ['internal.example.com', false],
    ['login.example.com', false],
  ];
  for (const [name, forbidden] of cases) {
    it(`${name}: ${forbidden ? 'refused' : 'looked up'}`, () =>
      expect(forbiddenHostName(name) !== undefined).to.equal(forbidden));
  }
});
