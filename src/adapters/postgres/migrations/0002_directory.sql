-- Up Migration

-- The organizations' directories that their identity providers push over SCIM
-- (src/application/ports/directory-store.ts). Every row carries its organization, and every
-- query of the store names it: nothing of one organization is read through another's name.

-- The lower-cased `value` of each of a user's e-mails: what `emails.value eq` and a sign-in's
-- e-mail match look up, through the GIN index below. Immutable (it reads its argument only),
-- so that a generated column may call it.
CREATE FUNCTION gatehouse_directory_email_values(attributes jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT COALESCE(array_agg(lower(e ->> 'value')) FILTER (WHERE e ->> 'value' IS NOT NULL), '{}')
    FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(attributes -> 'emails') = 'array' THEN attributes -> 'emails' ELSE '[]' END) e
$$;

-- One row per user. `attributes` holds the SCIM attributes as the store was given them
-- (UserAttributes); the columns the queries index are computed from it by the server, so
-- they never disagree with it. A deleted user stays as a tombstone (`deleted_at` set): out of
-- every SCIM read, its userName free again, but still matched by sign-ins (said deprovisioned)
-- until a user matching it is created again, which deletes it.
CREATE TABLE gatehouse_directory_users (
  id uuid PRIMARY KEY,
  organization text NOT NULL,
  attributes jsonb NOT NULL CHECK (jsonb_typeof(attributes) = 'object'),
  user_name text NOT NULL GENERATED ALWAYS AS (attributes ->> 'userName') STORED,
  external_id text NULL GENERATED ALWAYS AS (attributes ->> 'externalId') STORED,
  active boolean NOT NULL GENERATED ALWAYS AS ((attributes ->> 'active')::boolean) STORED,
  email_values text[] NOT NULL GENERATED ALWAYS AS (gatehouse_directory_email_values(attributes)) STORED,
  version integer NOT NULL CHECK (version > 0),
  created timestamptz NOT NULL,
  last_modified timestamptz NOT NULL,
  deleted_at timestamptz NULL,
  -- The order of creation among users created at the same time (pages are by created, then this).
  creation_order bigserial NOT NULL
);

-- userName is unique among an organization's live users, letter case ignored.
CREATE UNIQUE INDEX gatehouse_directory_users_user_name
  ON gatehouse_directory_users (organization, lower(user_name)) WHERE deleted_at IS NULL;
-- A sign-in's subject against tombstones too.
CREATE INDEX gatehouse_directory_users_user_name_any ON gatehouse_directory_users (organization, lower(user_name));
CREATE INDEX gatehouse_directory_users_external_id ON gatehouse_directory_users (organization, external_id);
-- `emails.value eq` and a sign-in's e-mails: array containment (`@>`, `&&`), then the organization.
CREATE INDEX gatehouse_directory_users_emails ON gatehouse_directory_users USING gin (email_values);
-- Pages in the order of creation.
CREATE INDEX gatehouse_directory_users_created
  ON gatehouse_directory_users (organization, created, creation_order) WHERE deleted_at IS NULL;

-- One row per group (groups are deleted outright: no sign-in matches a group).
CREATE TABLE gatehouse_directory_groups (
  id uuid PRIMARY KEY,
  organization text NOT NULL,
  attributes jsonb NOT NULL CHECK (jsonb_typeof(attributes) = 'object'),
  display_name text NOT NULL GENERATED ALWAYS AS (attributes ->> 'displayName') STORED,
  external_id text NULL GENERATED ALWAYS AS (attributes ->> 'externalId') STORED,
  version integer NOT NULL CHECK (version > 0),
  created timestamptz NOT NULL,
  last_modified timestamptz NOT NULL,
  creation_order bigserial NOT NULL
);

-- displayName is unique in an organization, letter case ignored.
CREATE UNIQUE INDEX gatehouse_directory_groups_display_name
  ON gatehouse_directory_groups (organization, lower(display_name));
CREATE INDEX gatehouse_directory_groups_external_id ON gatehouse_directory_groups (organization, external_id);
CREATE INDEX gatehouse_directory_groups_created ON gatehouse_directory_groups (organization, created, creation_order);

-- A group's members, in the order they were added (`added_order`). A member is a live user of
-- the group's organization: the store checks it, and removes a user's rows when deleting it.
CREATE TABLE gatehouse_directory_members (
  group_id uuid NOT NULL REFERENCES gatehouse_directory_groups (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES gatehouse_directory_users (id) ON DELETE CASCADE,
  organization text NOT NULL,
  added_order bigserial NOT NULL,
  PRIMARY KEY (group_id, user_id)
);

CREATE INDEX gatehouse_directory_members_order ON gatehouse_directory_members (group_id, added_order);
-- A user's groups (groupsOf, deleting a user).
CREATE INDEX gatehouse_directory_members_user ON gatehouse_directory_members (user_id);

-- Which sign-ins (by provider and subject) were a user's: where its sessions are found later.
CREATE TABLE gatehouse_directory_sign_ins (
  user_id uuid NOT NULL REFERENCES gatehouse_directory_users (id) ON DELETE CASCADE,
  organization text NOT NULL,
  provider text NOT NULL,
  subject text NOT NULL,
  signed_in_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, provider, subject)
);

-- The feed of changes, every organization's, in the order of `position`. The store appends
-- under a transaction-level advisory lock taken just before the append, so positions are
-- given in the order the transactions commit: a subscriber that read up to a position never
-- sees a smaller one commit later. `id` lets a subscriber drop a change it sees twice.
CREATE TABLE gatehouse_directory_changes (
  position bigserial PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  organization text NOT NULL,
  kind text NOT NULL
    CHECK (kind IN ('created', 'updated', 'deactivated', 'reactivated', 'deleted', 'group_membership')),
  resource_type text NOT NULL CHECK (resource_type IN ('User', 'Group')),
  resource_id uuid NOT NULL,
  at timestamptz NOT NULL,
  -- For group_membership: {"added": [user ids], "removed": [user ids]}.
  members jsonb NULL
);

-- Appends to the feed are announced on the channel `gatehouse_directory` (at commit, once per
-- transaction), whoever appends, so that every instance's subscribers read the feed again.
CREATE FUNCTION gatehouse_directory_changes_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gatehouse_directory', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER gatehouse_directory_changes_appended
  AFTER INSERT ON gatehouse_directory_changes
  FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_directory_changes_notify();

-- The SCIM bearer tokens of each organization, by the SHA-256 of their value (never the value).
CREATE TABLE gatehouse_directory_tokens (
  organization text NOT NULL,
  id text NOT NULL,
  hash text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL,
  last_used_at timestamptz NULL,
  PRIMARY KEY (organization, id)
);

-- Down Migration

DROP TABLE gatehouse_directory_tokens;
DROP TRIGGER gatehouse_directory_changes_appended ON gatehouse_directory_changes;
DROP TABLE gatehouse_directory_changes;
DROP FUNCTION gatehouse_directory_changes_notify();
DROP TABLE gatehouse_directory_sign_ins;
DROP TABLE gatehouse_directory_members;
DROP TABLE gatehouse_directory_groups;
DROP TABLE gatehouse_directory_users;
DROP FUNCTION gatehouse_directory_email_values(jsonb);
