import { providerKeys } from '../../domain/settings/settings.js';

/**
 * The JSON schema of the `ProjectTemplate` section. It types every value (ajv coerces
 * "true"/"false" and numeric strings from environment variables) and it is the one
 * place that declares which keys are secret (`secret: true`): that declaration drives
 * both the startup messages and the log redaction.
 *
 * URL and cross-key rules live in the domain's startup rules, because they apply only
 * to enabled providers (disabled ones may keep placeholders).
 */
type Schema = Record<string, unknown>;

const string: Schema = { type: 'string' };
const secret: Schema = { type: 'string', secret: true };
const boolean: Schema = { type: 'boolean' };
const number: Schema = { type: 'number' };
const strings: Schema = { type: 'array', items: string };
const object = (properties: Record<string, Schema>): Schema => ({
  type: 'object',
  properties,
  additionalProperties: false,
});

const providerCommon = { Enabled: boolean, Scheme: string, DisplayName: string };
const socialKeys = {
  ...providerCommon,
  ClientId: string,
  ClientSecret: secret,
  CallbackPath: string,
  Scopes: strings,
  SaveTokens: boolean,
  AuthorizationEndpoint: string,
  TokenEndpoint: string,
  UserInformationEndpoint: string,
};
const social = object(socialKeys);
const claimMappings: Schema = { type: 'object', additionalProperties: string };

export const projectTemplateSchema: Schema = object({
  Authentication: object({
    Enabled: boolean,
    DefaultScheme: string,
    DefaultChallengeScheme: string,
    DefaultSignInScheme: string,
    HttpTimeoutSeconds: number,
    Providers: object({
      OpenIdConnect: object({
        ...providerCommon,
        Authority: string,
        ClientId: string,
        ClientSecret: secret,
        CallbackPath: string,
        ResponseType: string,
        ResponseMode: { type: 'string', enum: ['query', 'form_post'] },
        SaveTokens: boolean,
        Scopes: strings,
        SignOutAtProvider: boolean,
      }),
      Saml2: object({
        ...providerCommon,
        EntityId: string,
        MetadataUrl: string,
        ModulePath: string,
        LoadMetadata: boolean,
        RequireSignedAssertions: boolean,
        ValidateCertificates: boolean,
      }),
      Social1: social,
      Social2: social,
      Social3: object({ ...socialKeys, UserEmailsEndpoint: string }),
    }),
    ClaimsTransformation: object({
      RemoveOriginalClaims: boolean,
      Mappings: object(Object.fromEntries(providerKeys.map((key) => [key, claimMappings]))),
    }),
  }),
  Authorization: object({
    RequireAuthenticatedUserByDefault: boolean,
    RoleClaimType: string,
    PermissionClaimType: string,
    AdministratorRoles: strings,
    ManageApplicationPermissions: strings,
  }),
  Hosting: object({ PublicOrigin: string, TrustProxy: boolean, ShutdownDrainSeconds: number }),
  Session: object({
    Store: { type: 'string', enum: ['Memory', 'Redis'] },
    Redis: object({ Url: secret, KeyPrefix: string, CommandTimeoutMs: number }),
    CookieName: string,
    IdleTimeout: number,
    AbsoluteLifetime: number,
    MaxSessions: number,
    MaxPendingSignIns: number,
    PendingSignInsPerClient: number,
    Keys: { type: 'array', items: secret, secret: true },
  }),
  Logging: object({ Level: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] } }),
});

/** Paths (below ProjectTemplate) of every key the schema marks secret. */
export function secretKeyPaths(schema: Schema = projectTemplateSchema, prefix: string[] = []): string[][] {
  if (schema.secret === true) return [prefix];
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties) return [];
  return Object.entries(properties).flatMap(([name, child]) => secretKeyPaths(child, [...prefix, name]));
}
