import type { Context, Middleware } from 'koa';
import type { PortalSession } from '../../../application/portal/portal-sessions.js';
import type { PortalSetup } from '../../../application/portal/portal-setup.js';
import type { IdentityProvider } from '../../../application/ports/identity-provider.js';
import type { Endpoint } from '../endpoint.js';
import { RoutePaths } from '../routes/route-paths.js';
import { portalEndpoint, portalOf } from './portal-guard.js';
import { sendOriginWithForms } from './provider-step.js';
import { portalServiceProviderMetadata, serviceProviderValues, type StoredKeys } from './service-provider-values.js';
import { GUIDES_READ, PROTOCOL_NAMES, isGuideProtocol, stepSegments, vendorGuide } from './vendor-guides.js';

export interface ServiceProviderStepDeps {
  setup: PortalSetup;
  /** The connections in force (IdentityProviders): a saved SAML connection's own metadata, as its ACS serves it. */
  providers: {
    connectionNamed(name: string): { organization: string } | undefined;
    byKey(key: string): Promise<IdentityProvider | undefined>;
  };
  /** `Hosting:PublicOrigin` (empty: the request's own): the values are URLs on it. */
  publicOrigin: string;
}

/**
 * Step 2, "What to enter there" (`/setup/portal/service-provider`): the chosen vendor's own
 * steps and the values to enter in its fields, for the portal session's connection only
 * (its name is the session's, never the request's), each value as plain text a copy button
 * (public/portal.js) can take; and the service provider's SAML metadata to download. Once
 * the connection is saved, what it turned on or off (single logout, logout paths, scopes)
 * shapes the values, and its metadata is the one its ACS serves.
 */
export function serviceProviderRoutes(deps: ServiceProviderStepDeps, guard: Middleware): Endpoint[] {
  const origin = (ctx: Context) => deps.publicOrigin || `${ctx.protocol}://${ctx.host}`;
  return [
    portalEndpoint('GET', RoutePaths.portalServiceProvider, guard, async (ctx) => {
      const { session } = portalOf(ctx);
      sendOriginWithForms(ctx);
      const guide = vendorGuide(session.vendor);
      const protocol = isGuideProtocol(session.protocol) ? session.protocol : undefined;
      const protocolGuide = protocol ? guide?.protocols[protocol] : undefined;
      if (!guide || !protocol || !protocolGuide) {
        await ctx.render('portal/service-provider', { session, csrfToken: session.csrf });
        return;
      }
      const keys = await savedKeys(deps.setup, session, protocol);
      const values = serviceProviderValues(protocol, origin(ctx), session.connection, keys).map((value) => ({
        ...value,
        field: protocolGuide.fields[value.name],
      }));
      await ctx.render('portal/service-provider', {
        session,
        csrfToken: session.csrf,
        vendor: guide.name,
        protocol,
        protocolName: PROTOCOL_NAMES[protocol],
        docs: protocolGuide.docs,
        guidesRead: GUIDES_READ,
        steps: protocolGuide.steps.map(stepSegments),
        values,
        metadataFile: protocol === 'Saml2' ? protocolGuide.fields.metadataFile : undefined,
      });
    }),
    portalEndpoint('GET', RoutePaths.portalServiceProviderMetadata, guard, async (ctx) => {
      const { session } = portalOf(ctx);
      const keys = await savedKeys(deps.setup, session, 'Saml2');
      // The saved connection's adapter serves what its ACS does (its certificates, single
      // logout), once the version in force is this organization's; before it is saved, or
      // while it is not in force, the same function makes it.
      const inForce = keys ? deps.providers.connectionNamed(session.connection) : undefined;
      const document =
        inForce?.organization === session.organization
          ? (await deps.providers.byKey(session.connection))?.callbackDocument?.()
          : undefined;
      ctx.type = document?.contentType ?? 'application/samlmetadata+xml';
      // The connection's name is letters, digits and "-": safe in the header as it is.
      ctx.set('content-disposition', `attachment; filename="${session.connection}-saml-metadata.xml"`);
      ctx.body = document?.body ?? portalServiceProviderMetadata(origin(ctx), session.connection, keys);
    }),
  ];
}

/** The portal's connection's stored keys, when it is saved (its organization's, through PortalSetup) with `protocol`. */
async function savedKeys(
  setup: PortalSetup,
  session: PortalSession,
  protocol: string,
): Promise<StoredKeys | undefined> {
  const { connection } = await setup.state(session, undefined);
  return connection?.keys.Protocol === protocol ? connection.keys : undefined;
}
