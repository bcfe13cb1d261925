/**
 * Return-URL validation: the only guard between a `returnUrl` query value and a redirect,
 * so it copies ASP.NET Core's `UrlHelperBase.CheckIsLocalUrl` rule for rule instead of
 * inventing one. Anything the rule does not recognise as local is refused: no URL parsing,
 * no decoding, no normalisation (each of those is a place where the validator and the
 * browser could disagree about what the string means).
 */

/**
 * ASP.NET's `char.IsControl`: Unicode category Cc, i.e. C0 (U+0000-U+001F), DEL (U+007F)
 * and C1 (U+0080-U+009F). Browsers silently strip tab, CR and LF from URLs
 * (WHATWG URL "remove all ASCII tab or newline"), so `/\t/evil.example` would become the
 * protocol-relative `//evil.example`; refusing every control character closes that door.
 * No `u` flag: like .NET, the check runs over UTF-16 code units.
 */
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F-\u009F]/;

/**
 * True when `value` is a local URL by ASP.NET Core's `CheckIsLocalUrl` rules:
 * - `/` alone, or `/` followed by a character that is neither `/` nor `\`
 *   (`//host` and `/\host` are protocol-relative to browsers);
 * - `~/` alone, or `~/` followed by a character that is neither `/` nor `\`;
 * - and no control character anywhere.
 * Empty is not local. Percent-escapes are literal text here (`/%2F%2Fevil` is a path).
 */
export function isLocalUrl(value: string): boolean {
  if (value.startsWith('/')) {
    if (value.length === 1) return true;
    const second = value[1];
    return second !== '/' && second !== '\\' && !CONTROL_CHARACTER.test(value);
  }
  if (value.startsWith('~/')) {
    if (value.length === 2) return true;
    const third = value[2];
    return third !== '/' && third !== '\\' && !CONTROL_CHARACTER.test(value);
  }
  return false;
}

/**
 * The longest return URL kept. A page's own address is never longer in practice, and a
 * pending sign-in stores its return URL until the sign-in completes: a client must not be
 * able to park kilobytes in the store per challenge.
 */
export const MAX_RETURN_URL_LENGTH = 2048;

/** True when `value` is a return URL `validateReturnUrl` keeps: local, and at most `MAX_RETURN_URL_LENGTH` characters. */
export function isLocalReturnUrl(value: string | undefined): value is string {
  return value !== undefined && value.length <= MAX_RETURN_URL_LENGTH && isLocalUrl(value);
}

/**
 * The URL to redirect to after sign-in: `value` when it is local and at most
 * `MAX_RETURN_URL_LENGTH` characters, otherwise `fallback` (`/` unless the caller has a
 * validated local URL of its own).
 * `~/path` is app-relative in ASP.NET (`~` is the application's path base); Gatehouse is
 * always mounted at `/`, so `~/path` becomes `/path` and `~/` becomes `/`. Returning `~/...`
 * unchanged would hand the browser a relative path (`~` is an ordinary segment to it).
 */
export function validateReturnUrl(value: string | undefined, fallback = '/'): string {
  if (isLocalReturnUrl(value)) return value.startsWith('~/') ? value.slice(1) : value;
  // The fallback is validated too: a caller's mistake still never leaves the site.
  return fallback === '/' ? '/' : validateReturnUrl(fallback);
}
