/** The tests' PostgreSQL servers are the bench's: one implementation, in scripts/local-postgres/. */
export {
  startPostgres,
  type PostgresMajor,
  type PostgresServer,
} from '../../scripts/local-postgres/postgres-server.js';
