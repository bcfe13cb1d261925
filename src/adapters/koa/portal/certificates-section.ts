import type { CertificateExpiry, CertificateView } from '../../../application/connections/certificate-expiry.js';
import { isGatehouseError } from '../../../domain/errors.js';

/** What the overview's certificates section (views/portal/certificates.njk) shows. */
export type CertificatesSection = { list: CertificateView[] } | { unavailable: true };

/**
 * The portal connection's signing certificates for the overview: undefined while no
 * connection of the portal's organization by that name is in force (nothing to show yet),
 * `unavailable` when its identity provider's keys cannot be read now (the page still works).
 */
export function certificatesSection(
  expiry: CertificateExpiry,
): (organization: string, connection: string) => Promise<CertificatesSection | undefined> {
  return async (organization, connection) => {
    try {
      const list = await expiry.of(connection, organization);
      return list && { list };
    } catch (error) {
      if (!isGatehouseError(error)) throw error;
      return { unavailable: true };
    }
  };
}
