import type { Logger } from '../../application/ports/logger.js';
import { isGatehouseError, type GatehouseError } from '../../domain/errors.js';
import { decryptionStepOf } from './assertion-decryption.js';

/**
 * The log lines of one SAML provider's refusals: each by its stable code, the stage it
 * happened at and the message's IDs (shape-checked before they get here), never the
 * message's content, the metadata document or its URL.
 */
export class SamlRefusalLog {
  constructor(
    private readonly logger: Logger,
    private readonly provider: string,
  ) {}

  /** Logs the refusal and returns it, to throw. */
  refused(stage: string, error: GatehouseError, ids: Readonly<Record<string, string>> = {}): GatehouseError {
    // Which decryption step failed is for the operator only: the answer is the same for all.
    const decryption = decryptionStepOf(error);
    this.logger.warn(
      { provider: this.provider, stage, code: error.code, ...(decryption ? { decryption } : {}), ...ids },
      'SAML step failed',
    );
    return error;
  }

  /**
   * A failed metadata load, once per attempt (attempts are spaced: refreshing-metadata.ts):
   * its code, its reason (written by Gatehouse, never quoting the document or the URL), and
   * when the next attempt may start. Requests meanwhile are refused with the same error.
   */
  metadataFailed(error: unknown, retryInMs: number): void {
    this.logger.warn(
      {
        provider: this.provider,
        stage: 'metadata',
        code: isGatehouseError(error) ? error.code : 'idp.metadata_invalid',
        ...(isGatehouseError(error) && error.safe ? { reason: error.message } : {}),
        retryInSeconds: Math.ceil(retryInMs / 1000),
      },
      'SAML metadata could not be loaded',
    );
  }

  /** SP-initiated single logout not sent: the page's CSP allows the metadata's origin only. */
  singleLogoutElsewhere(): void {
    this.logger.warn(
      { provider: this.provider, stage: 'logout' },
      'the SingleLogoutService is on another origin than MetadataUrl: signed out locally only',
    );
  }
}
