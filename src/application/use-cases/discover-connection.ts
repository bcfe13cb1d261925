import { inject, injectable } from 'tsyringe';
import { emailDomain } from '../../domain/connections/email-domain.js';
import { GatehouseError } from '../../domain/errors.js';
import type { IdentityProviders } from '../identity-providers.js';
import type { AuditRequest } from '../ports/audit-log.js';
import { IdentityProvidersToken } from '../ports/identity-provider.js';
import { BeginSignIn } from './begin-sign-in.js';

export interface DiscoverConnectionInput {
  /** The address the person typed, untrusted. */
  email: string | undefined;
  returnUrl: string | undefined;
  binding: string;
  client: string;
  request?: AuditRequest;
}

/**
 * "Sign in with your work e-mail": the connection holding the address's domain starts its
 * sign-in, with the address as a hint to the provider when the connection allows it. The
 * address proves nothing here: the sign-in that follows is checked against the
 * connection's domains (organization-guard.ts), whatever the person typed.
 *
 * Which domains have a connection here is a list of customers: every well-formed lookup,
 * found or not, counts against the client's sign-in attempts before anything is looked up
 * (BeginSignIn.countAttempt), so a client past its limit is refused alike (429) for a
 * customer's domain and for an unknown one, and no client can walk a list of domains.
 */
@injectable()
export class DiscoverConnection {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
    @inject(BeginSignIn) private readonly beginSignIn: BeginSignIn,
  ) {}

  async execute(input: DiscoverConnectionInput): Promise<{ redirectUrl: string }> {
    const address = input.email?.trim() ?? '';
    const found = address === '' ? { problem: 'malformed' as const } : emailDomain(address);
    if ('problem' in found) {
      throw new GatehouseError('auth.email_malformed', 'Enter an e-mail address such as name@example.com.', {
        safe: true,
      });
    }
    await this.beginSignIn.countAttempt(input.client, input.request);
    const connection = this.providers.connectionForDomain(found.domain);
    if (!connection) {
      throw new GatehouseError('auth.unknown_domain', 'No organization signs in with that e-mail domain here.', {
        safe: true,
      });
    }
    return this.beginSignIn.execute({
      scheme: connection.name,
      returnUrl: input.returnUrl,
      binding: input.binding,
      client: input.client,
      counted: true,
      request: input.request,
      ...(connection.sendLoginHint ? { loginHint: address } : {}),
    });
  }
}
