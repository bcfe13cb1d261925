import { ClaimTypes } from '../../domain/claims/claim-types.js';
import { claimValues, subjectOf, type Principal } from '../../domain/claims/principal.js';
import type { OrganizationBinding } from '../../domain/connections/organization-guard.js';
import { withDirectoryRoles } from '../../domain/directory/directory-roles.js';
import { GatehouseError } from '../../domain/errors.js';
import type { DirectoryStore } from '../ports/directory-store.js';

/** The refusal of a person their organization's directory deprovisioned: safe to show. */
export const USER_DEPROVISIONED = 'idp.user_deprovisioned';
const DEPROVISIONED_MESSAGE =
  "Your organization's directory says your account is turned off, so you cannot sign in here. Ask your IT administrator if this is a mistake.";
/** The directory could not be asked: the sign-in is refused rather than let a deprovisioned person in. */
export const DIRECTORY_UNAVAILABLE = 'idp.directory_unavailable';
const UNAVAILABLE_MESSAGE =
  "Your organization's directory cannot be checked right now, so this sign-in cannot be completed. Please try again in a minute.";

/**
 * A connection's sign-in, checked against its organization's directory: a person the
 * directory deactivated or deleted is refused (`idp.user_deprovisioned`) until the directory
 * makes them active again; a person it knows is remembered as this sign-in's (where their
 * sessions are found when the directory changes them) and gets the organization roles their
 * groups grant. A person the directory does not know signs in as before: the directory adds
 * what it knows, it does not limit sign-in to the people it pushed. With the store out of
 * reach, the sign-in is refused (`idp.directory_unavailable`): a deprovisioned person must
 * not get in because the database is down.
 */
export class DirectorySignIn {
  constructor(
    private readonly store: DirectoryStore,
    private readonly now: () => number,
  ) {}

  async admit(binding: OrganizationBinding, provider: string, principal: Principal): Promise<Principal> {
    const subject = subjectOf(principal);
    const subjects = subject === undefined ? [] : [subject];
    const emails = claimValues(principal, ClaimTypes.Email);
    try {
      const [byAttributes, recorded] = await Promise.all([
        this.store.signInMatch(binding.organization, { subjects, emails }),
        subject === undefined ? undefined : this.store.recordedSignIn(binding.organization, provider, subject),
      ]);
      // What the directory holds now decides (a person deleted, then created again, signs in
      // as the new user); where it holds nothing this sign-in carries, the user an earlier
      // sign-in was recorded for does: a person deactivated, then renamed and given another
      // address by their directory, is still that deactivated person.
      const match = byAttributes ?? recorded;
      if (!match) return principal;
      if (match.state !== 'active') throw new GatehouseError(USER_DEPROVISIONED, DEPROVISIONED_MESSAGE, { safe: true });
      if (subject !== undefined) {
        await this.store.recordSignIn(binding.organization, match.userId, provider, subject, this.now());
      }
      const groups = await this.store.groupsOf(binding.organization, match.userId);
      return withDirectoryRoles(
        principal,
        binding,
        groups.map((group) => group.attributes),
      );
    } catch (error) {
      if (error instanceof GatehouseError && error.code === USER_DEPROVISIONED) throw error;
      throw new GatehouseError(DIRECTORY_UNAVAILABLE, UNAVAILABLE_MESSAGE, { safe: true, cause: error });
    }
  }
}

/** The container's name for `{ signIn?: DirectorySignIn }`: `signIn` only where directory sync is on. */
export const DirectorySignInToken = Symbol('DirectorySignIn');
