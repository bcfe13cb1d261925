import type { AuditLog } from '../ports/audit-log.js';
import type { SessionStore } from '../ports/session-store.js';
import { AdministrationProblem } from '../administration/administration-problem.js';
import type { ConnectionView, DomainView } from '../administration/connection-views.js';
import type { ManageConnections } from '../administration/manage-connections.js';
import type { PortalSession } from './portal-sessions.js';
import type { TestResult } from './test-results.js';

/** Where a portal's setup stands, step by step: what the pages show and what activation needs. */
export interface SetupState {
  /** The connection as stored, when the identity provider's step wrote it. */
  connection?: ConnectionView;
  domains: DomainView[];
  /** At least one domain proved through DNS. */
  domainVerified: boolean;
  /** The last test sign-in, when it tested the version stored now. */
  test?: TestResult;
  /** Activation's conditions met: a passed test of the current version (or of the draft) and a proved domain. */
  canActivate: boolean;
  activated: boolean;
  /** A change of the activated connection saved here, waiting for its test and its activation: when it was saved. */
  draftSavedAt?: number;
}

/** A draft of an activated connection: its keys as the catalog would store them (secrets sealed). */
interface Draft {
  keys: Record<string, unknown>;
  savedAt: number;
}

/** A draft lives as long as a portal session can: left longer, it is gone and the live version stays. */
const DRAFT_LIFETIME_MS = 12 * 60 * 60_000;
const draftKey = (connection: string) => `portal-draft:${connection.toLowerCase()}`;

/** The keys of a connection a portal never writes: the organization and activation are the portal's, grants the operator's. */
const KEPT_FROM_PORTAL = new Set(['organization', 'activated', 'grantsdeploymentroles', 'enabled']);

/**
 * The setup portal's work on the one connection its session sets up, for its one
 * organization: every read and write goes through the administration API's use case
 * (ManageConnections: the same rules, pre-flight, sealing and audit), with the organization
 * forced to the session's and the actor `portal:<link id>`. A connection of the same name
 * that belongs to another organization is not found: a portal reaches its own organization's
 * connection only. A connection written here is not activated until its admin activates it,
 * after a test sign-in of the stored version passed and a domain was proved. A change of a
 * connection activated already is kept as a draft (checked, pre-flighted and sealed as a
 * write would be, in the session store), tested through an adapter of its own while the live
 * version goes on signing people in, and replaces it only when activated after its test passed.
 */
export class PortalSetup {
  constructor(
    private readonly manage: ManageConnections,
    private readonly audit: AuditLog,
    /** Where drafts wait (the session store: memory, or Redis shared by every instance). */
    private readonly drafts: SessionStore,
    private readonly now: () => number,
  ) {}

  async state(session: PortalSession, latestTest: TestResult | undefined): Promise<SetupState> {
    const connection = await this.#own(session);
    const domains = connection?.domains ?? [];
    const domainVerified = domains.some((domain) => domain.verified === true);
    const activated = connection?.keys.Activated !== false && connection !== undefined;
    const draft = activated ? await this.#draft(session) : undefined;
    const updatedAt = connection?.updatedAt ? Date.parse(connection.updatedAt) : undefined;
    // A test counts for the version it tested (the draft, when one waits): any change since asks for a new one.
    const since = draft?.savedAt ?? updatedAt;
    const forThisVersion =
      latestTest !== undefined &&
      since !== undefined &&
      latestTest.at >= since &&
      (latestTest.draft === true) === (draft !== undefined);
    const test = forThisVersion ? latestTest : undefined;
    const passed = test?.outcome === 'passed';
    return {
      ...(connection ? { connection } : {}),
      domains,
      domainVerified,
      ...(test ? { test } : {}),
      canActivate: connection !== undefined && domainVerified && passed && (!activated || draft !== undefined),
      activated,
      ...(draft ? { draftSavedAt: draft.savedAt } : {}),
    };
  }

  /** The draft's keys the test sign-in tests, when a change of the activated connection waits. */
  async draftOf(session: PortalSession): Promise<Record<string, unknown> | undefined> {
    return (await this.#own(session)) ? (await this.#draft(session))?.keys : undefined;
  }

  /**
   * Writes the identity provider's keys (the protocol's, the display name, the domains) as
   * the portal's connection, not activated when it is new. For a connection activated
   * already, the same checks and pre-flight run and the result waits as a draft: the live
   * version is unchanged until the draft's test passes and its admin activates it.
   */
  async saveIdentityProvider(session: PortalSession, keys: Readonly<Record<string, unknown>>): Promise<ConnectionView> {
    const current = await this.#own(session);
    const given = Object.fromEntries(Object.entries(keys).filter(([key]) => !KEPT_FROM_PORTAL.has(key.toLowerCase())));
    const activated = current !== undefined && current.keys.Activated !== false;
    const body = {
      ...given,
      Organization: session.organization,
      Activated: activated,
      // A draft keeps the live version's domains: the domains' step changes those, proved one by one.
      Domains: activated ? current.keys.Domains : (given.Domains ?? current?.keys.Domains ?? []),
    };
    if (activated) {
      const { write } = await this.manage.prepare(session.connection, body);
      const draft: Draft = { keys: { ...write.keys }, savedAt: this.now() };
      if (!(await this.drafts.replace(draftKey(session.connection), { ...draft }, DRAFT_LIFETIME_MS)))
        await this.drafts.create(draftKey(session.connection), { ...draft }, DRAFT_LIFETIME_MS);
      return current;
    }
    // Version 0 when it is not this organization's yet: a create only, never a write over a
    // connection of the same name that another organization (or the operator) holds.
    const { view } = await this.manage.put(session.connection, body, current?.version ?? 0, this.#actor(session));
    return view;
  }

  /** Drops the draft waiting for the portal's connection: the live version stays as it is. */
  async discardDraft(session: PortalSession): Promise<void> {
    if (await this.#own(session)) await this.drafts.destroy(draftKey(session.connection));
  }

  async addDomain(session: PortalSession, domain: string): Promise<ConnectionView> {
    const current = await this.#required(session);
    const domains = Array.isArray(current.keys.Domains) ? (current.keys.Domains as string[]) : [];
    const { view } = await this.manage.put(
      session.connection,
      { ...current.keys, Domains: [...domains, domain] },
      current.version,
      this.#actor(session),
    );
    return view;
  }

  async verifyDomain(session: PortalSession, domain: string): Promise<DomainView> {
    await this.#required(session);
    return this.manage.verifyDomain(session.connection, domain, undefined, this.#actor(session));
  }

  async removeDomain(session: PortalSession, domain: string): Promise<void> {
    await this.#required(session);
    await this.manage.removeDomain(session.connection, domain, undefined, this.#actor(session));
  }

  /** Activates the connection once a test of its stored version passed and a domain is proved. */
  async activate(session: PortalSession, latestTest: TestResult | undefined): Promise<ConnectionView> {
    const state = await this.state(session, latestTest);
    if (!state.connection || !state.canActivate) {
      throw new AdministrationProblem(
        'invalid',
        'portal.not_ready',
        !state.domainVerified
          ? 'Prove at least one of your domains first: publish its TXT record and verify it.'
          : 'Run a test sign-in of the connection as it is now, and see it pass, first.',
      );
    }
    const { connection } = state;
    const draft = state.draftSavedAt !== undefined ? await this.#draft(session) : undefined;
    const view = draft
      ? await this.manage.putPrepared(
          { name: connection.name, keys: draft.keys, domains: [] },
          connection.version,
          this.#actor(session),
        )
      : (
          await this.manage.put(
            session.connection,
            { ...connection.keys, Activated: true },
            connection.version,
            this.#actor(session),
          )
        ).view;
    if (draft) await this.drafts.destroy(draftKey(session.connection));
    this.audit.record({
      type: 'connection.activated',
      actor: `portal:${session.linkId}`,
      connection: view.name,
      organization: session.organization,
    });
    return view;
  }

  async #draft(session: PortalSession): Promise<Draft | undefined> {
    const record = await this.drafts.get(draftKey(session.connection));
    return record && typeof record.keys === 'object' && record.keys !== null && typeof record.savedAt === 'number'
      ? { keys: record.keys as Record<string, unknown>, savedAt: record.savedAt }
      : undefined;
  }

  /** The portal's connection, when it exists and is its organization's; never another organization's. */
  async #own(session: PortalSession): Promise<ConnectionView | undefined> {
    try {
      const view = await this.manage.get(session.connection);
      return view.keys.Organization === session.organization && view.managedBy === 'api' ? view : undefined;
    } catch (error) {
      if (error instanceof AdministrationProblem && error.kind === 'not-found') return undefined;
      throw error;
    }
  }

  async #required(session: PortalSession): Promise<ConnectionView> {
    const view = await this.#own(session);
    if (!view) {
      throw new AdministrationProblem(
        'not-found',
        'portal.no_connection',
        "Give your identity provider's details first: the connection does not exist yet.",
      );
    }
    return view;
  }

  #actor(session: PortalSession) {
    return { id: `portal:${session.linkId}` };
  }
}
