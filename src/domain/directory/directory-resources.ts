/**
 * What an organization's directory tells Gatehouse about its people and groups over SCIM
 * (RFC 7643), kept as the attributes of the schemas Gatehouse serves: the core User with
 * the enterprise extension, and the core Group. An attribute of no schema here is ignored
 * when read (scim-resources.ts says which are kept).
 */

/** One value of a multi-valued attribute (`emails`, `phoneNumbers`). */
export interface MultiValue {
  value: string;
  type?: string;
  primary?: boolean;
  display?: string;
}

export interface PersonName {
  formatted?: string;
  familyName?: string;
  givenName?: string;
  middleName?: string;
  honorificPrefix?: string;
  honorificSuffix?: string;
}

/** The enterprise extension (`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User`). */
export interface EnterpriseAttributes {
  employeeNumber?: string;
  costCenter?: string;
  organization?: string;
  division?: string;
  department?: string;
  /** Another user of the directory, by id (`value`). */
  manager?: { value?: string; displayName?: string };
}

export interface UserAttributes {
  /** Unique in the organization, compared without regard to letter case. */
  userName: string;
  /** The directory's own identifier of the person (Okta's user id, Entra ID's object id or mailNickname). */
  externalId?: string;
  /** false: deprovisioned; their sessions end and their sign-ins are refused until true again. */
  active: boolean;
  displayName?: string;
  nickName?: string;
  title?: string;
  userType?: string;
  preferredLanguage?: string;
  locale?: string;
  timezone?: string;
  name?: PersonName;
  emails?: MultiValue[];
  phoneNumbers?: MultiValue[];
  enterprise?: EnterpriseAttributes;
}

export interface GroupAttributes {
  /** Unique in the organization, compared without regard to letter case. */
  displayName: string;
  externalId?: string;
}

/** A user of an organization's directory as stored: its attributes, and the store's id, version and times. */
export interface DirectoryUser {
  /** Ours (a UUID), given at creation; never reused. */
  id: string;
  organization: string;
  attributes: UserAttributes;
  /** 1 when created, one more at every change: the ETag's version. */
  version: number;
  /** Milliseconds since the epoch. */
  created: number;
  lastModified: number;
}

export interface DirectoryGroup {
  id: string;
  organization: string;
  attributes: GroupAttributes;
  version: number;
  created: number;
  lastModified: number;
}

/** A member of a group: a user of the same organization, by id. */
export interface GroupMember {
  value: string;
  /** The member's `displayName`, else its `userName` (read, never stored). */
  display?: string;
}
