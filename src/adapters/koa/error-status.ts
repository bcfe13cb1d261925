/**
 * HTTP status of each error code family: the one place where domain and application
 * error codes meet HTTP. Longest matching prefix wins.
 */
const STATUS_BY_CODE: Record<string, number> = {
  'request.': 400,
  'request.too_large': 413,
  'request.method_not_allowed': 405,
  'request.unsupported_type': 415,
  'admin.too_many_requests': 429,
  'auth.unknown_provider': 400,
  'auth.too_many_sign_ins': 429,
  'auth.disabled': 403,
  'auth.unknown_policy': 400,
  'auth.step_up_unavailable': 403,
  'idp.step_up_stale': 403,
  'idp.step_up_not_met': 403,
  'idp.subject_changed': 403,
  'idp.step_up_session_ended': 403,
  'auth.session_unknown': 404,
  'auth.unknown_domain': 404,
  'auth.email_malformed': 400,
  'idp.connection_unknown': 404,
  'idp.unavailable': 503,
  'idp.email_missing': 403,
  'idp.email_unverified': 403,
  'idp.domain_not_allowed': 403,
  'idp.domain_not_verified': 403,
  'idp.connection_not_active': 403,
  'idp.user_deprovisioned': 403,
  'idp.directory_unavailable': 503,
  'directory.busy': 429,
  'antiforgery.': 400,
  'idp.': 400,
  'idp.unreachable': 503,
  'idp.timeout': 503,
  'idp.token_exchange_failed': 502,
  'idp.authorization_request_refused': 502,
  'idp.client_authentication_unsupported': 503,
  'idp.pushed_authorization_required': 503,
  'idp.userinfo_failed': 502,
  'idp.metadata_invalid': 503,
  'idp.validator_unavailable': 503,
  'idp.message_too_large': 413,
  'session.store_unavailable': 503,
  'session.store_full': 503,
};

/**
 * Server-side refusals whose cause is logged where it arises, once per episode (a full
 * store of replay records): each request refused meanwhile is logged as a refusal, not as
 * one more failure, so a burst does not flood the log.
 */
const LOGGED_WHERE_RAISED: ReadonlySet<string> = new Set(['session.store_full']);

export function loggedWhereRaised(code: string | undefined): boolean {
  return code !== undefined && LOGGED_WHERE_RAISED.has(code);
}

export function statusForCode(code: string): number {
  let best = '';
  for (const prefix of Object.keys(STATUS_BY_CODE)) {
    if ((code === prefix || (prefix.endsWith('.') && code.startsWith(prefix))) && prefix.length > best.length)
      best = prefix;
  }
  return best ? (STATUS_BY_CODE[best] ?? 500) : 500;
}
