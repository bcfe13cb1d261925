/**
 * The counters of what the application does, each with the attributes it may carry. Every
 * attribute value comes from a set bounded by configuration or code (provider keys, policy
 * names, error codes, causes, outcomes): never a user identifier, an e-mail, an address, a
 * session id, a token or a URL, so that a time series per value stays affordable and no
 * personal data leaves in a metric (docs/operations.md, Telemetry).
 */
export interface CounterAttributes {
  'gatehouse.authentication.challenges': { provider: string; outcome: 'redirected' | 'failure'; 'error.type'?: string };
  'gatehouse.authentication.sign_ins': {
    provider: string;
    outcome: 'success' | 'failure';
    /** The stable code of a refusal (`idp.state_mismatch`). */
    'error.type'?: string;
    /** `idp_initiated` when the provider started it, `step_up` for a fresher or stronger sign-in asked for; absent for an ordinary one. */
    cause?: string;
  };
  /** One per session ended: why (`signout`, `provider_logout`, `sign_out_others`, `connection_removed` ...) and by whom (`user`, `provider` ...). */
  'gatehouse.authentication.sign_outs': { cause: string; by: string };
  'gatehouse.authorization.attempts': { policy: string; result: 'allowed' | 'denied' | 'challenged' | 'step_up' };
  /**
   * One per SCIM request a directory made: the resource (`User`, `Group`, `Token` for one
   * refused before it was known), the operation (`create`, `get`, `list`, `replace`, `patch`,
   * `delete`) and the outcome (`success`, or the SCIM error's `scimType`, or `refused`). No
   * organization: their number grows with customers.
   */
  'gatehouse.directory.operations': { resource: string; operation: string; outcome: string };
  /** `limit`: which limit refused (`sign_ins_per_client`). */
  'gatehouse.rate_limit.refusals': { limit: string; provider?: string };
}

/** The histograms of what the application waits for, in seconds, and their attributes (same rule). */
export interface DurationAttributes {
  'gatehouse.authentication.callback.duration': { provider: string; outcome: 'success' | 'failure' };
}

export type CounterName = keyof CounterAttributes;
export type DurationName = keyof DurationAttributes;

/**
 * Where the application records what it did, for operators' dashboards and alerts. Off by
 * default (`NoTelemetry`): recording then costs a call that does nothing. An adapter never
 * throws into the caller and never waits for an exporter.
 */
export interface Telemetry {
  /** Adds one to a counter. */
  count<Name extends CounterName>(name: Name, attributes: CounterAttributes[Name]): void;
  /** Records one duration, in seconds. */
  duration<Name extends DurationName>(name: Name, seconds: number, attributes: DurationAttributes[Name]): void;
}

/** Telemetry switched off: nothing is recorded. */
export class NoTelemetry implements Telemetry {
  count(): void {}
  duration(): void {}
}

export const TelemetryToken = Symbol('Telemetry');
