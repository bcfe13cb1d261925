import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { FlowSecrets } from '../ports/identity-provider.js';
import { readFlowStepUp, type FlowStepUp } from './step-ups.js';
import { PendingSignInStoreToken, type SessionStore, type StoredRecord } from '../ports/session-store.js';

/** How long a started sign-in may take before its answer is refused. */
export const FLOW_LIFETIME_MS = 15 * 60 * 1000;
/** The store keeps a record a minute longer than it is valid, so that a late answer is told "expired", not "unknown". */
const FLOW_STORED_MS = FLOW_LIFETIME_MS + 60 * 1000;

/** A pending sign-in: what the callback needs, kept server-side and used once. */
export interface Flow {
  provider: ProviderKey;
  /** Validated before it was stored: local, and not too long. */
  returnUrl: string;
  createdAt: number;
  /** The random value of the browser that started it (its flow-binding cookie). */
  binding: string;
  secrets: FlowSecrets;
  /** Present when the flow is a step-up of a sign-in (step-ups.ts): what its answer must meet. */
  stepUp?: FlowStepUp;
  /**
   * Present when the flow is the setup portal's test sign-in: the portal session's key its
   * result is kept under. Its answer signs nobody in (CompleteSignIn).
   */
  portalTest?: string;
  /** With a portal test of a draft: the draft's keys (secrets sealed), rebuilt by whichever instance gets the answer. */
  candidate?: Record<string, unknown>;
}

/**
 * Pending sign-in flows, in the pending-sign-in store (apart from signed-in sessions). A
 * flow is stored under a hash of its correlation value (`state`, `RelayState`), so that a
 * dump of the store does not hand out values an attacker could replay.
 */
@injectable()
export class FlowRecords {
  constructor(@inject(PendingSignInStoreToken) private readonly store: SessionStore) {}

  async save(correlation: string, flow: Flow): Promise<void> {
    const record = { ...flow, secrets: { ...flow.secrets } };
    if (!(await this.store.create(flowKey(correlation), record, FLOW_STORED_MS))) {
      throw new Error('A new sign-in correlation value collided with a pending one.');
    }
  }

  /** The flow without using it up: a callback delivered to another browser must not spend the rightful browser's flow. */
  async find(correlation: string): Promise<Flow | undefined> {
    return readFlow(await this.store.get(flowKey(correlation)));
  }

  /** The flow, used up in one atomic step: of two answers carrying it, one gets it. */
  async take(correlation: string): Promise<Flow | undefined> {
    return readFlow(await this.store.take(flowKey(correlation)));
  }
}

function flowKey(correlation: string): string {
  return `flow:${encodeHexLowerCase(sha256(new TextEncoder().encode(correlation)))}`;
}

/** The stored record, narrowed field by field: a store is outside the process. */
function readFlow(record: StoredRecord | undefined): Flow | undefined {
  if (!record) return undefined;
  const { provider, returnUrl, createdAt, binding, secrets, stepUp, portalTest, candidate } = record;
  if (typeof provider !== 'string' || typeof returnUrl !== 'string' || typeof createdAt !== 'number') return undefined;
  if (typeof binding !== 'string' || typeof secrets !== 'object' || secrets === null) return undefined;
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets)) if (typeof value === 'string') strings[name] = value;
  const flow: Flow = {
    provider,
    returnUrl,
    createdAt,
    binding,
    secrets: strings,
    ...(typeof portalTest === 'string' ? { portalTest } : {}),
    ...(typeof candidate === 'object' && candidate !== null && !Array.isArray(candidate)
      ? { candidate: candidate as Record<string, unknown> }
      : {}),
  };
  if (stepUp === undefined) return flow;
  // A step-up whose record cannot be read is no flow at all: never a plain sign-in in its place.
  const readStepUp = readFlowStepUp(stepUp);
  return readStepUp ? { ...flow, stepUp: readStepUp } : undefined;
}
