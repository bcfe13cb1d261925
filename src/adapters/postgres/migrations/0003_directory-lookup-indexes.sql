-- Up Migration

-- The directory's indexes, rebuilt so that a lookup is found by what it looks up whatever the
-- planner's statistics say. In 0002 every index led with `organization`; until the table's
-- statistics catch up (a new table, or a new organization among others: during its whole
-- initial sync), the planner takes an organization for a handful of rows, any index holding
-- the organization looks as cheap as the right one, and it walked the organization's rows in
-- order of creation to answer `userName eq "..."` or a read by id: a lookup grew with the
-- organization (20 ms at 10,000 users, measured), and a sync of 100,000 users with it.
--
-- Now a statement that names the organization as `organization = $1` finds no index of it
-- at all: each lookup goes by its key (userName, externalId, an e-mail, the id), and the
-- organization is checked on the few rows the key finds. The organization is indexed only
-- COLLATE "C", which an index serves only to a comparison of that collation: the unique
-- userNames and displayNames (per organization; equality is the same in both collations),
-- and the pages' order of creation, which the statements that page reach by comparing the
-- organization COLLATE "C" (directory-pages.ts).

DROP INDEX gatehouse_directory_users_user_name;
CREATE UNIQUE INDEX gatehouse_directory_users_user_name
  ON gatehouse_directory_users (lower(user_name), organization COLLATE "C") WHERE deleted_at IS NULL;
DROP INDEX gatehouse_directory_users_user_name_any;
CREATE INDEX gatehouse_directory_users_user_name_any ON gatehouse_directory_users (lower(user_name));
DROP INDEX gatehouse_directory_users_external_id;
CREATE INDEX gatehouse_directory_users_external_id ON gatehouse_directory_users (external_id);
DROP INDEX gatehouse_directory_users_created;
CREATE INDEX gatehouse_directory_users_created
  ON gatehouse_directory_users (organization COLLATE "C", created, creation_order) WHERE deleted_at IS NULL;
-- An e-mail lookup reads the index itself, not a pending list of the latest writes that a
-- sync fills faster than autovacuum empties it (4 ms a lookup, measured at 20,000 users);
-- a user holds a few e-mails, so each write adds a few entries at once.
ALTER INDEX gatehouse_directory_users_emails SET (fastupdate = off);
SELECT gin_clean_pending_list('gatehouse_directory_users_emails');

DROP INDEX gatehouse_directory_groups_display_name;
CREATE UNIQUE INDEX gatehouse_directory_groups_display_name
  ON gatehouse_directory_groups (lower(display_name), organization COLLATE "C");
DROP INDEX gatehouse_directory_groups_external_id;
CREATE INDEX gatehouse_directory_groups_external_id ON gatehouse_directory_groups (external_id);
DROP INDEX gatehouse_directory_groups_created;
CREATE INDEX gatehouse_directory_groups_created
  ON gatehouse_directory_groups (organization COLLATE "C", created, creation_order);

-- Down Migration

DROP INDEX gatehouse_directory_groups_created;
CREATE INDEX gatehouse_directory_groups_created ON gatehouse_directory_groups (organization, created, creation_order);
DROP INDEX gatehouse_directory_groups_external_id;
CREATE INDEX gatehouse_directory_groups_external_id ON gatehouse_directory_groups (organization, external_id);
DROP INDEX gatehouse_directory_groups_display_name;
CREATE UNIQUE INDEX gatehouse_directory_groups_display_name
  ON gatehouse_directory_groups (organization, lower(display_name));

ALTER INDEX gatehouse_directory_users_emails RESET (fastupdate);
DROP INDEX gatehouse_directory_users_created;
CREATE INDEX gatehouse_directory_users_created
  ON gatehouse_directory_users (organization, created, creation_order) WHERE deleted_at IS NULL;
DROP INDEX gatehouse_directory_users_external_id;
CREATE INDEX gatehouse_directory_users_external_id ON gatehouse_directory_users (organization, external_id);
DROP INDEX gatehouse_directory_users_user_name_any;
CREATE INDEX gatehouse_directory_users_user_name_any ON gatehouse_directory_users (organization, lower(user_name));
DROP INDEX gatehouse_directory_users_user_name;
CREATE UNIQUE INDEX gatehouse_directory_users_user_name
  ON gatehouse_directory_users (organization, lower(user_name)) WHERE deleted_at IS NULL;
