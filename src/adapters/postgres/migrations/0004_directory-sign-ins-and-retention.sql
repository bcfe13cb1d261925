-- Up Migration

-- A sign-in is checked against the user an earlier sign-in of the same provider and subject
-- was recorded for (directory-users.ts, selectRecordedSignIn): a person the directory
-- deactivated stays refused even once the directory changed the attributes their sign-in
-- was first matched by. Found by this index, which leads with the subject, not the
-- organization: an organization the planner's statistics do not know yet must not make it
-- walk that organization's sign-ins (0003 says why).
CREATE INDEX gatehouse_directory_sign_ins_subject
  ON gatehouse_directory_sign_ins (subject, provider, organization);

-- The feed's retention removes the oldest changes by time (directory-feed.ts,
-- deleteChangesBefore), a step at a time: each step finds them by this index, not by a walk
-- of the whole feed.
CREATE INDEX gatehouse_directory_changes_at ON gatehouse_directory_changes (at, position);

-- Down Migration

DROP INDEX gatehouse_directory_changes_at;
DROP INDEX gatehouse_directory_sign_ins_subject;
