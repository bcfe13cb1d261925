import type { Directory } from '../../../application/ports/directory.js';
import { authorize } from '../../../domain/authorization/endpoint-metadata.js';
import type { DirectoryFilter, UserAttribute } from '../../../domain/directory/directory-filter.js';
import type { DirectoryUser } from '../../../domain/directory/directory-resources.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from './route-paths.js';

/** People a page shows. */
const PAGE_SIZE = 50;
/** The groups listed beside them: a directory of thousands of groups is not a page's list. */
const GROUPS_SHOWN = 100;
/** A search longer than any name or address is not one. */
const MAX_SEARCH_LENGTH = 100;

export interface PeopleRouteDeps {
  directory: Pick<Directory, 'users' | 'groups'>;
  /** The application's policy admitting the members of the organization a route names. */
  organizationMemberPolicy: string;
}

/**
 * The sample application's page of an organization's people, where directory sync is on
 * (`/Organizations/:organization/People`): the people and groups its identity provider
 * pushed, read through the application's `Directory` port, for the organization's own
 * members only (the policy of the organization the route names: another organization's
 * members, and the deployment's own administrators, are refused). A search matches a part
 * of the name, the user name or an address; 50 a page.
 */
export function peopleRoutes(deps: PeopleRouteDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: RoutePaths.organizationPeople,
      metadata: authorize(deps.organizationMemberPolicy),
      handler: async (ctx) => {
        const organization = String(ctx.params.organization);
        const search = typeof ctx.query.q === 'string' ? ctx.query.q.trim().slice(0, MAX_SEARCH_LENGTH) : '';
        const page = Math.max(1, Math.min(10_000, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1));
        const [people, groups] = await Promise.all([
          deps.directory.users(organization, {
            ...(search ? { filter: searchFilter(search) } : {}),
            startIndex: (page - 1) * PAGE_SIZE + 1,
            count: PAGE_SIZE,
          }),
          deps.directory.groups(organization, { count: GROUPS_SHOWN }),
        ]);
        const pages = Math.max(1, Math.ceil(people.total / PAGE_SIZE));
        const base = RoutePaths.organizationPeople.replace(':organization', encodeURIComponent(organization));
        const at = (n: number) =>
          `${base}?${new URLSearchParams({ ...(search ? { q: search } : {}), page: String(n) })}`;
        ctx.set('Cache-Control', 'no-store');
        await ctx.render('people', {
          organization,
          search,
          total: people.total,
          people: people.resources.map(shownPerson),
          groups: groups.resources.map((group) => group.attributes.displayName),
          groupsTotal: groups.total,
          page,
          pages,
          previous: page > 1 ? at(page - 1) : undefined,
          next: page < pages ? at(page + 1) : undefined,
        });
      },
    },
  ];
}

/** A part of the name, user name or an address, letter case ignored (the filter's `co`). */
function searchFilter(search: string): DirectoryFilter<UserAttribute> {
  const contains = (attribute: UserAttribute) => ({ op: 'co' as const, attribute, value: search });
  return {
    op: 'or',
    filters: [contains('displayName'), contains('userName'), contains('name.formatted'), contains('emails.value')],
  };
}

function shownPerson(user: DirectoryUser) {
  const { attributes } = user;
  const name =
    attributes.displayName ??
    attributes.name?.formatted ??
    [attributes.name?.givenName, attributes.name?.familyName].filter(Boolean).join(' ');
  const email = attributes.emails?.find((address) => address.primary) ?? attributes.emails?.[0];
  return {
    name: name || attributes.userName,
    userName: attributes.userName,
    email: email?.value,
    title: attributes.title,
    department: attributes.enterprise?.department,
    active: attributes.active,
  };
}
