import { verificationRecord, type RecordPrefixes } from '../connections/domain-verification.js';
import { checkEncryptionKeys } from './encryption-key-rules.js';
import { error, keyOf, warning, type SettingsProblem } from './problem.js';
import type { Environment, ProjectTemplateSettings } from './settings.js';

/** How `Administration:ApiKeys` holds a key: its SHA-256, 64 lowercase hex digits, never the key. */
const API_KEY_HASH = /^[0-9a-f]{64}$/;
/** An IPv4 address with an optional port, or an IPv6 one (in brackets with a port): what the resolver takes, no host name. */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const IPV6 = '[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}';
const PORT = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}))?';
const DNS_SERVER = new RegExp(`^(?:${IPV4}${PORT}|\\[${IPV6}\\]${PORT}|${IPV6})$`);

/**
 * The rules for `Administration` and `Database`: the API needs somewhere to write
 * (`Database:ConnectionString` or `Authentication:ConnectionsDirectory`) and sign-ins to
 * manage; keys and hashes are well formed; the domain checks' names and counts make sense.
 * A problem names its key, never a value (the connection string holds a password).
 */
export function checkAdministration(settings: ProjectTemplateSettings, environment: Environment): SettingsProblem[] {
  const admin = settings.Administration;
  const problems: SettingsProblem[] = [...checkEncryptionKeys(admin.EncryptionKeys)];
  const key = (...path: string[]) => keyOf('Administration', ...path);
  const connectionString = settings.Database.ConnectionString.trim();
  if (connectionString !== '' && !/^postgres(?:ql)?:\/\//i.test(connectionString)) {
    problems.push(error(keyOf('Database', 'ConnectionString'), 'must be a postgresql:// URL (or DATABASE_URL one)'));
  }
  admin.ApiKeys.forEach((hash, index) => {
    if (!API_KEY_HASH.test(hash)) {
      problems.push(
        error(
          key('ApiKeys', String(index)),
          'must be the SHA-256 of an API key, 64 lowercase hex digits (npm run admin:new-api-key prints a key and its hash): never the key itself',
        ),
      );
    }
  });
  admin.DnsServers.forEach((server, index) => {
    if (!DNS_SERVER.test(server.trim()))
      problems.push(
        error(
          key('DnsServers', String(index)),
          'must be an IP address with an optional port (192.0.2.53:53, [2001:db8::53]:53): a resolver is named by its address, not a host name',
        ),
      );
  });
  // Each prefix checked alone, so that the problem names the one at fault.
  const refused = (prefixes: RecordPrefixes) =>
    'problem' in verificationRecord('example.com', 'AAAAAAAAAAAAAAAAAAAAAA', prefixes);
  if (refused({ namePrefix: admin.DomainRecordPrefix })) {
    problems.push(error(key('DomainRecordPrefix'), 'must be one DNS label (letters, digits, "_", "-")'));
  }
  if (refused({ valuePrefix: admin.DomainValuePrefix })) {
    problems.push(
      error(key('DomainValuePrefix'), 'must be printable text without spaces or quotes, at most 64 characters'),
    );
  }
  if (!Number.isInteger(admin.DomainRecheckSeconds) || admin.DomainRecheckSeconds < 60) {
    problems.push(error(key('DomainRecheckSeconds'), 'must be a whole number of seconds, at least 60'));
  }
  if (!Number.isInteger(admin.DomainMissesBeforeUnverified) || admin.DomainMissesBeforeUnverified < 1) {
    problems.push(error(key('DomainMissesBeforeUnverified'), 'must be a whole number, at least 1'));
  }
  if (!admin.Enabled) return problems;
  if (!settings.Authentication.Enabled) {
    problems.push(
      error(key('Enabled'), 'needs Authentication:Enabled: the API manages connections people sign in through'),
    );
  }
  if (connectionString === '' && settings.Authentication.ConnectionsDirectory.trim() === '') {
    problems.push(
      error(
        key('Enabled'),
        'needs a catalog to write into: Database:ConnectionString (or DATABASE_URL) for PostgreSQL, or Authentication:ConnectionsDirectory for the folder',
      ),
    );
  }
  if (admin.ManagePermission.trim() === '') problems.push(error(key('ManagePermission'), 'must name a permission'));
  if (admin.AllowPrivateNetworks && environment === 'production') {
    problems.push(
      warning(
        key('AllowPrivateNetworks'),
        "is true in production: a connection's pre-flight may fetch from this network's private addresses and the cloud's metadata service",
      ),
    );
  }
  return problems;
}
