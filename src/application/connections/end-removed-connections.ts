import { inject, injectable } from 'tsyringe';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { CONNECTION_LOGOUT_KEY } from '../use-cases/complete-sign-in.js';
import { EndSessions } from '../use-cases/end-sessions.js';
import { ConnectionRemovals } from './connection-removals.js';
import type { Connection } from '../../domain/connections/connection.js';
import type { ConnectionEvent, ConnectionRegistry } from './connection-registry.js';

/**
 * A connection no longer in force (its file deleted, `Enabled` false) ends its users'
 * sessions, on every instance sharing the store, through `EndSessions` (audited, cause
 * `connection_removed`); so does a connection moved to another organization (its users'
 * sessions carry the earlier one). Every instance that sees the folder sees the change and
 * runs the ending: the sessions end once, each instance records what it ended. A session
 * of a connection that is gone is anonymous at once anyway (AuthenticateSession), ended
 * here or not; and the removal's time is recorded (ConnectionRemovals), so that a session
 * the ending did not find is ended at its next request even once the connection is back.
 */
@injectable()
export class EndRemovedConnections {
  constructor(
    @inject(EndSessions) private readonly endSessions: EndSessions,
    @inject(LoggerToken) private readonly logger: Logger,
    @inject(ConnectionRemovals) private readonly removals: ConnectionRemovals,
  ) {}

  listen(registry: ConnectionRegistry): void {
    registry.onEvent((event) => {
      const ended = endedBy(event);
      if (ended) void this.end(ended);
      else if (event.kind === 'added' || event.kind === 'changed') this.removals.refresh(event.connection.name);
    });
  }

  private async end(connection: Connection): Promise<void> {
    // Known in this process before anything else happens; stored for the others meanwhile.
    const recorded = this.removals.recordRemoval(connection.name).catch(() => {
      this.logger.error(
        { connection: connection.name },
        "a removed connection's removal time could not be stored: instances that did not see the removal may not end its sessions if it comes back",
      );
    });
    try {
      await this.endSessions.execute(
        { provider: connection.name, logoutKeys: [CONNECTION_LOGOUT_KEY] },
        { by: 'system', cause: 'connection_removed' },
      );
    } catch {
      // The store was unreachable: the sessions stay anonymous (not in force), and end with their lifetime.
      this.logger.error({ connection: connection.name }, "a removed connection's sessions could not all be ended now");
    }
    await recorded;
  }
}

function endedBy(event: ConnectionEvent): Connection | undefined {
  if (event.kind === 'removed') return event.connection;
  if (event.kind === 'changed' && event.previous && event.previous.organization !== event.connection.organization) {
    return event.previous;
  }
  return undefined;
}
