-- Up Migration

-- One row per connection of the administration API's catalog (src/application/ports/connection-catalog.ts).
-- `id` is the name in lower case (names compare case-insensitively), in byte order ("C") so
-- that the keyset pages of `list` come in the same order on every server, whatever its locale.
CREATE TABLE gatehouse_connections (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  -- The connection's keys as the API took them, every secret sealed (never in the clear).
  keys jsonb NOT NULL,
  -- keys.Organization, for the organization filter of `list` and for claimsOf: computed by
  -- the server, so that it follows the keys whoever writes them (an instance, psql).
  organization text NOT NULL GENERATED ALWAYS AS (COALESCE(keys ->> 'Organization', '')) STORED,
  version integer NOT NULL CHECK (version > 0),
  updated_at timestamptz NOT NULL
);

-- The organization filter, in the order of the pages.
CREATE INDEX gatehouse_connections_organization ON gatehouse_connections (organization, id);

-- One row per domain of a connection (keys.Domains), with its DNS proof.
CREATE TABLE gatehouse_connection_domains (
  connection_id text COLLATE "C" NOT NULL REFERENCES gatehouse_connections (id) ON DELETE CASCADE,
  domain text NOT NULL,
  token text NOT NULL,
  verified_at timestamptz NULL,
  checked_at timestamptz NULL,
  misses integer NOT NULL DEFAULT 0,
  PRIMARY KEY (connection_id, domain)
);

-- Who holds a domain (claimsOf, the domain filter of `list`).
CREATE INDEX gatehouse_connection_domains_domain ON gatehouse_connection_domains (domain);

-- Every change to either table, by whoever makes it (another instance, psql, a provisioning
-- job), is announced on the channel `gatehouse_connections` with the connection's id, so that
-- each instance reads that connection again. Notifications are sent at commit, and one
-- transaction's repeats of an id are sent once.
CREATE FUNCTION gatehouse_connections_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  old_id text;
  new_id text;
BEGIN
  IF TG_TABLE_NAME = 'gatehouse_connections' THEN
    IF TG_OP <> 'INSERT' THEN old_id := OLD.id; END IF;
    IF TG_OP <> 'DELETE' THEN new_id := NEW.id; END IF;
  ELSE
    IF TG_OP <> 'INSERT' THEN old_id := OLD.connection_id; END IF;
    IF TG_OP <> 'DELETE' THEN new_id := NEW.connection_id; END IF;
  END IF;
  -- An update that renames the id announces both: the old one is gone.
  IF old_id IS NOT NULL THEN PERFORM pg_notify('gatehouse_connections', old_id); END IF;
  IF new_id IS NOT NULL AND new_id IS DISTINCT FROM old_id THEN
    PERFORM pg_notify('gatehouse_connections', new_id);
  END IF;
  RETURN NULL;
END;
$$;

-- TRUNCATE names no row: it is announced as `TRUNCATE`, which no id can be (ids are in lower
-- case), and instances read the whole catalog again.
CREATE FUNCTION gatehouse_connections_notify_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gatehouse_connections', 'TRUNCATE');
  RETURN NULL;
END;
$$;

CREATE TRIGGER gatehouse_connections_changed
  AFTER INSERT OR UPDATE OR DELETE ON gatehouse_connections
  FOR EACH ROW EXECUTE FUNCTION gatehouse_connections_notify();

CREATE TRIGGER gatehouse_connection_domains_changed
  AFTER INSERT OR UPDATE OR DELETE ON gatehouse_connection_domains
  FOR EACH ROW EXECUTE FUNCTION gatehouse_connections_notify();

CREATE TRIGGER gatehouse_connections_truncated
  AFTER TRUNCATE ON gatehouse_connections
  FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_connections_notify_truncate();

CREATE TRIGGER gatehouse_connection_domains_truncated
  AFTER TRUNCATE ON gatehouse_connection_domains
  FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_connections_notify_truncate();

-- Down Migration

DROP TABLE gatehouse_connection_domains;
DROP TABLE gatehouse_connections;
DROP FUNCTION gatehouse_connections_notify_truncate();
DROP FUNCTION gatehouse_connections_notify();
