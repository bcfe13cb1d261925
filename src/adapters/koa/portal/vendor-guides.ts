/**
 * The setup portal's guide per identity-provider vendor: which protocols it is offered with
 * here, and, for each, the vendor's own short steps naming its own screens and fields
 * (written from the vendor's documentation, read in {@link GUIDES_READ}), with the field
 * each value of "What to enter there" goes in. In the steps, `**...**` marks a name the
 * admin sees on the vendor's screen, and backquotes a value to type.
 */

/** A connection's `Protocol`: the provider kinds that back connections. */
export type GuideProtocol = 'Saml2' | 'OpenIdConnect';

export const PROTOCOL_NAMES: Readonly<Record<GuideProtocol, string>> = {
  Saml2: 'SAML 2.0',
  OpenIdConnect: 'OpenID Connect',
};

/** What the portal gives the admin to enter (service-provider-values.ts computes each). */
export type ValueName =
  | 'acsUrl'
  | 'entityId'
  | 'metadataUrl'
  | 'metadataFile'
  | 'logoutUrl'
  | 'nameIdFormat'
  | 'emailAttribute'
  | 'nameAttribute'
  | 'groupsAttribute'
  | 'redirectUri'
  | 'postLogoutRedirectUri'
  | 'frontchannelLogoutUri'
  | 'backchannelLogoutUri'
  | 'scopes';

export interface ProtocolGuide {
  /** The vendor's steps, in its own words for its screens and fields. */
  steps: readonly string[];
  /** The vendor's own name of the field each value goes in; a value it has no field for is absent. */
  fields: Partial<Record<ValueName, string>>;
  /** The vendor's page these steps follow (absent for the generic "other" choices). */
  docs?: { title: string; url: string };
}

export interface VendorGuide {
  id: string;
  name: string;
  /** Why a protocol the vendor has is not offered here, when one is not. */
  note?: string;
  protocols: Partial<Record<GuideProtocol, ProtocolGuide>>;
}

/** When the vendors' pages were read: the page says so, since vendors move their screens. */
export const GUIDES_READ = 'November 2026';

const GIVE_IT_BACK = 'at the next step, **What it gave you**';

export const VENDOR_GUIDES: readonly VendorGuide[] = [
  {
    id: 'okta',
    name: 'Okta',
    protocols: {
      Saml2: {
        docs: {
          title: 'Okta: Create SAML app integrations',
          url: 'https://help.okta.com/en-us/content/topics/apps/apps_app_integration_wizard_saml.htm',
        },
        steps: [
          'In the Okta Admin Console, go to **Applications** > **Applications** and select **Create App Integration**.',
          'Choose **SAML 2.0** as the **Sign-in method**, select **Next**, enter an **App name** and select **Next**.',
          'Under **SAML Settings**, paste the ACS URL into **Single sign-on URL** (keep **Use this for Recipient URL and Destination URL** selected) and the entity ID into **Audience URI (SP Entity ID)**.',
          'Set **Name ID format** to **Persistent** and **Application username** to **Email**.',
          'Under **Attribute Statements**, add the e-mail attribute name below with **Name format** **URI Reference** and the value `user.email`, and the name attribute with `user.displayName`. For roles from groups, add a row under **Group Attribute Statements** named the groups attribute name, with the filter **Matches regex** `.*`.',
          `Select **Finish**. On the **Sign On** tab, copy the **Metadata URL**: you give it ${GIVE_IT_BACK}.`,
          'On the **Assignments** tab, **Assign** the people or groups who sign in.',
        ],
        fields: {
          acsUrl: 'Single sign-on URL',
          entityId: 'Audience URI (SP Entity ID)',
          nameIdFormat: 'Name ID format',
          emailAttribute: 'Attribute Statements',
          nameAttribute: 'Attribute Statements',
          groupsAttribute: 'Group Attribute Statements',
        },
      },
      OpenIdConnect: {
        docs: {
          title: 'Okta: Create OpenID Connect app integrations',
          url: 'https://help.okta.com/en-us/Content/Topics/Apps/Apps_App_Integration_Wizard_OIDC.htm',
        },
        steps: [
          'In the Okta Admin Console, go to **Applications** > **Applications** and select **Create App Integration**.',
          'Choose **OIDC - OpenID Connect** as the **Sign-in method** and **Web Application** as the **Application type**, then select **Next**.',
          'Enter an **App integration name** and keep **Authorization Code** under **Grant type**.',
          'Paste the redirect URI into **Sign-in redirect URIs** and the post-logout redirect URI into **Sign-out redirect URIs**.',
          'Under **Assignments**, choose who may sign in, then select **Save**.',
          `On the **General** tab, copy the **Client ID** and the **Client secret**; your Okta address (\`https://<your org>.okta.com\`) is the issuer. You give them ${GIVE_IT_BACK}.`,
        ],
        fields: {
          redirectUri: 'Sign-in redirect URIs',
          postLogoutRedirectUri: 'Sign-out redirect URIs',
        },
      },
    },
  },
  {
    id: 'entra-id',
    name: 'Microsoft Entra ID',
    protocols: {
      Saml2: {
        docs: {
          title: 'Microsoft Learn: Enable single sign-on for an enterprise application',
          url: 'https://learn.microsoft.com/en-us/entra/identity/enterprise-apps/add-application-portal-setup-sso',
        },
        steps: [
          'In the Microsoft Entra admin center, go to **Enterprise applications**, select **New application**, then **Create your own application**.',
          "Enter its name, choose **Integrate any other application you don't find in the gallery (Non-gallery)** and select **Create**.",
          'Open **Single sign-on** and choose **SAML**. In **Basic SAML Configuration**, select **Edit**: paste the entity ID into **Identifier (Entity ID)**, the ACS URL into **Reply URL (Assertion Consumer Service URL)** and, when a logout URL is listed below, that into **Logout Url (Optional)**; then **Save**. (Or **Upload metadata file** with the metadata file below.)',
          'In **Attributes & Claims**, keep the default claims: the **emailaddress** claim is the e-mail address and **name** the name. Optionally set **Unique User Identifier (Name ID)** to the format **Persistent**. For roles from groups, **Add a group claim**.',
          `In **SAML Certificates**, copy the **App Federation Metadata Url**: you give it ${GIVE_IT_BACK}.`,
          'In **Users and groups**, **Add user/group** for the people who sign in.',
        ],
        fields: {
          entityId: 'Identifier (Entity ID)',
          acsUrl: 'Reply URL (Assertion Consumer Service URL)',
          logoutUrl: 'Logout Url (Optional)',
          metadataFile: 'Upload metadata file',
          nameIdFormat: 'Unique User Identifier (Name ID)',
          emailAttribute: 'Attributes & Claims',
          nameAttribute: 'Attributes & Claims',
          groupsAttribute: 'Add a group claim',
        },
      },
      OpenIdConnect: {
        docs: {
          title: 'Microsoft Learn: Register an application in Microsoft Entra ID',
          url: 'https://learn.microsoft.com/en-us/entra/identity-platform/quickstart-register-app',
        },
        steps: [
          'In the Microsoft Entra admin center, go to **App registrations** and select **New registration**.',
          'Enter a **Name** and, under **Supported account types**, choose **Accounts in this organizational directory only**.',
          'Under **Redirect URI (optional)**, choose **Web** and paste the redirect URI; select **Register**.',
          'Under **Authentication**, paste the front-channel logout URL into **Front-channel logout URL** and **Save**. (Entra ID has no back-channel logout.)',
          'Under **Token configuration**, **Add optional claim** of the token type **ID** and choose **email**: Entra ID sends the address only when asked. For roles from groups, **Add groups claim**.',
          'Under **Certificates & secrets**, **Client secrets**, select **New client secret** and copy its **Value** (it is shown once).',
          `On the **Overview**, copy the **Application (client) ID** and the **Directory (tenant) ID**: the issuer is \`https://login.microsoftonline.com/<Directory (tenant) ID>/v2.0\`. You give them ${GIVE_IT_BACK}.`,
        ],
        fields: {
          redirectUri: 'Redirect URI (optional)',
          frontchannelLogoutUri: 'Front-channel logout URL',
          scopes: 'Add optional claim',
        },
      },
    },
  },
  {
    id: 'google-workspace',
    name: 'Google Workspace',
    note: "SAML 2.0 only: Google's OpenID Connect issuer (accounts.google.com) is every Google customer's, and a connection here is bound to an identity provider of its own organization.",
    protocols: {
      Saml2: {
        docs: {
          title: 'Google Workspace Admin Help: Set up your own custom SAML app',
          url: 'https://support.google.com/a/answer/6087519',
        },
        steps: [
          'In the Google Admin console, go to **Apps** > **Web and mobile apps** and select **Add app** > **Add custom SAML app**.',
          'Enter an **App name** and select **Continue**.',
          `On **Google Identity Provider details**, select **Download metadata** (you give this file ${GIVE_IT_BACK}) and **Continue**.`,
          'On **Service provider details**, paste the ACS URL into **ACS URL** and the entity ID into **Entity ID**; set **Name ID format** to **PERSISTENT** and **Name ID** to **Basic Information > Primary email**; select **Continue**.',
          'On **Attribute mapping**, map **Primary email** to the e-mail attribute name below. For roles from groups, under **Group membership** choose the groups and name the app attribute the groups attribute name. Select **Finish**.',
          'Open **User access**, choose **ON for everyone** (or the organizational units who sign in) and **Save**. (Google Workspace has no single logout.)',
        ],
        fields: {
          acsUrl: 'ACS URL',
          entityId: 'Entity ID',
          nameIdFormat: 'Name ID format',
          emailAttribute: 'Attribute mapping',
          groupsAttribute: 'Group membership',
        },
      },
    },
  },
  {
    id: 'adfs',
    name: 'Active Directory Federation Services (ADFS)',
    note: 'SAML 2.0 only: a relying party trust is how ADFS releases these claims without custom rules.',
    protocols: {
      Saml2: {
        docs: {
          title: 'Microsoft Learn: Create a Relying Party Trust',
          url: 'https://learn.microsoft.com/en-us/windows-server/identity/ad-fs/operations/create-a-relying-party-trust',
        },
        steps: [
          'In **AD FS Management**, under **Actions**, select **Add Relying Party Trust**; choose **Claims aware** and **Start**.',
          'On **Select Data Source**, choose **Import data about the relying party from a file** with the metadata file below (or the metadata URL with **Import data about the relying party published online or on a local network**, once your connection is saved), or **Enter data about the relying party manually**.',
          'Entering it manually: on **Configure URL**, select **Enable support for the SAML 2.0 WebSSO protocol** and paste the ACS URL into **Relying party SAML 2.0 SSO service URL**; on **Configure Identifiers**, add the entity ID as a **Relying party trust identifier**.',
          'On **Choose Access Control Policy**, choose who may sign in, then finish the wizard.',
          'Select the new trust and **Edit Claim Issuance Policy**: **Add Rule** of the type **Send LDAP Attributes as Claims**, with **Active Directory** as the attribute store, mapping **E-Mail-Addresses** to **E-Mail Address**, **User-Principal-Name** to **UPN** and **Display-Name** to **Name**; for roles from groups, **Token-Groups - Unqualified Names** to **Group**.',
          `Your federation metadata is \`https://<your ADFS host>/FederationMetadata/2007-06/FederationMetadata.xml\`: you give it ${GIVE_IT_BACK}.`,
        ],
        fields: {
          metadataFile: 'Import data about the relying party from a file',
          metadataUrl: 'Import data about the relying party published online or on a local network',
          acsUrl: 'Relying party SAML 2.0 SSO service URL',
          entityId: 'Relying party trust identifier',
          emailAttribute: 'E-Mail Address',
          nameAttribute: 'Name',
          groupsAttribute: 'Group',
        },
      },
    },
  },
  {
    id: 'onelogin',
    name: 'OneLogin',
    protocols: {
      Saml2: {
        docs: { title: 'OneLogin Developers: SAML', url: 'https://developers.onelogin.com/saml' },
        steps: [
          'In the OneLogin administration, go to **Applications** > **Applications**, select **Add App**, search for **SAML Custom Connector (Advanced)**, give it a **Display Name** and **Save**.',
          'On the **Configuration** tab, paste the entity ID into **Audience (EntityID)**, the ACS URL into **Recipient**, **ACS (Consumer) URL** and, as a pattern, **ACS (Consumer) URL Validator**; when a logout URL is listed below, paste it into **Single Logout URL**.',
          'Set **SAML initiator** to **Service Provider**, **SAML nameID format** to **Persistent** and **SAML signature element** to **Assertion**; **Save**.',
          'On the **Parameters** tab, add a parameter named the e-mail attribute name below, select **Include in SAML assertion**, with the value **Email**; likewise the name attribute; for roles, the groups attribute.',
          `On the **SSO** tab, copy the **Issuer URL** (the metadata URL): you give it ${GIVE_IT_BACK}.`,
          'On the **Users** tab (or through roles), give the people who sign in access.',
        ],
        fields: {
          entityId: 'Audience (EntityID)',
          acsUrl: 'ACS (Consumer) URL',
          logoutUrl: 'Single Logout URL',
          nameIdFormat: 'SAML nameID format',
          emailAttribute: 'Parameters',
          nameAttribute: 'Parameters',
          groupsAttribute: 'Parameters',
        },
      },
      OpenIdConnect: {
        docs: {
          title: 'OneLogin Developers: Connect an OIDC enabled app',
          url: 'https://developers.onelogin.com/openid-connect/connect-to-onelogin',
        },
        steps: [
          'In the OneLogin administration, go to **Applications** > **Applications**, select **Add App**, search for **OpenId Connect (OIDC)**, name it and **Save**.',
          "On the **Configuration** tab, paste the redirect URI into **Redirect URI's**, and the post-logout redirect URI into **Post Logout Redirect URI** when it is offered; **Save**.",
          'On the **SSO** tab, set **Application Type** to **Web** and **Token Endpoint** **Authentication Method** to **Basic**.',
          `Copy the **Client ID** and **Client Secret** from the **SSO** tab; the issuer is \`https://<your subdomain>.onelogin.com/oidc/2\`. You give them ${GIVE_IT_BACK}.`,
          'On the **Users** tab (or through roles), give the people who sign in access.',
        ],
        fields: {
          redirectUri: "Redirect URI's",
          postLogoutRedirectUri: 'Post Logout Redirect URI',
        },
      },
    },
  },
  {
    id: 'jumpcloud',
    name: 'JumpCloud',
    protocols: {
      Saml2: {
        docs: {
          title: 'JumpCloud: SSO using Custom SAML Application Connectors',
          url: 'https://jumpcloud.com/support/sso-using-custom-saml-application-connectors',
        },
        steps: [
          'In the JumpCloud Admin Portal, go to **User Authentication** > **SSO Applications**, select **+ Add New Application** and **Custom Application**; choose **Manage Single Sign-On (SSO)** and **Configure SSO with SAML**, then enter a **Display Label**.',
          "On the **SSO** tab, enter an **IdP Entity ID** of your choice (your organization's name will do), paste the entity ID into **SP Entity ID** and the ACS URL into **ACS URLs**. (Or **Upload Metadata** with the metadata file below.)",
          'Set **SAMLSubject NameID** to **email** and **SAMLSubject NameID Format** to **persistent**; select **Sign Assertion**.',
          'Under **Attributes**, add the e-mail attribute name below as a **Service Provider Attribute Name** with the **JumpCloud Attribute Name** **email**; for roles from groups, select **Include group attribute** and name it the groups attribute name.',
          `Select **activate**, then on the **SSO** tab **Copy Metadata URL**: you give it ${GIVE_IT_BACK}.`,
          'On the **User Groups** tab, choose the groups who sign in and **save**.',
        ],
        fields: {
          entityId: 'SP Entity ID',
          acsUrl: 'ACS URLs',
          metadataFile: 'Upload Metadata',
          nameIdFormat: 'SAMLSubject NameID Format',
          emailAttribute: 'Service Provider Attribute Name',
          groupsAttribute: 'Include group attribute',
        },
      },
      OpenIdConnect: {
        docs: { title: 'JumpCloud: SSO with OIDC', url: 'https://jumpcloud.com/support/sso-with-oidc' },
        steps: [
          'In the JumpCloud Admin Portal, go to **User Authentication** > **SSO Applications**, select **+ Add New Application** and **Custom Application**; choose **Manage Single Sign-On (SSO)** and **Configure SSO with OIDC**, then enter a **Display Label**.',
          "On the **SSO** tab, paste the redirect URI into **Redirect URIs**, choose **Client Secret Basic** as the **Client Authentication Type** and enter your application's address as the **Login URL**.",
          'Under **Attribute Mapping**, select the **Standard Scopes** **Email** and **Profile**.',
          `Select **activate** and copy the **Client ID** and **Client Secret** it shows once; the issuer is \`https://oauth.id.jumpcloud.com/\`. You give them ${GIVE_IT_BACK}.`,
          'On the **User Groups** tab, choose the groups who sign in and **save**.',
        ],
        fields: {
          redirectUri: 'Redirect URIs',
          scopes: 'Standard Scopes',
        },
      },
    },
  },
  {
    id: 'pingfederate',
    name: 'PingFederate',
    protocols: {
      Saml2: {
        docs: {
          title: 'PingFederate: SP connection General Info',
          url: 'https://docs.pingidentity.com/r/en-us/pingfederate-112/help_spconnectionconfigtasklet_generalinfostate',
        },
        steps: [
          'In the PingFederate administrative console, go to **Applications** > **Integration** > **SP Connections** and select **Create Connection**.',
          'Choose **Do not use a template for this connection**; on **Connection Type**, select **Browser SSO Profiles** with the protocol **SAML 2.0**.',
          "On **Import Metadata**, choose **File** with the metadata file below (or **URL** with the metadata URL, once your connection is saved); otherwise, on **General Info**, paste the entity ID into **Partner's Entity ID (Connection ID)**.",
          "Under **Configure Browser SSO**, select **SP-Initiated SSO**; in **Assertion Creation**, on **Identity Mapping** choose **Standard**, and on **Attribute Contract** extend the contract with the e-mail attribute name below (and the name and groups attributes), fulfilled from your directory's mail, name and group attributes.",
          'Under **Protocol Settings**, on **Assertion Consumer Service URL**, choose the binding **POST** and paste the ACS URL as the **Endpoint URL**; sign the assertion with your signing certificate under **Credentials**.',
          `Export your metadata (**System** > **Protocol Metadata** > **Metadata Export**) or note its URL: you give it ${GIVE_IT_BACK}.`,
        ],
        fields: {
          metadataFile: 'File',
          metadataUrl: 'URL',
          entityId: "Partner's Entity ID (Connection ID)",
          acsUrl: 'Endpoint URL',
          emailAttribute: 'Attribute Contract',
          nameAttribute: 'Attribute Contract',
          groupsAttribute: 'Attribute Contract',
        },
      },
      OpenIdConnect: {
        docs: {
          title: 'PingFederate: Configuring OAuth clients',
          url: 'https://docs.pingidentity.com/pingfederate/13.1/administrators_reference_guide/pf_configuring_oauth_clients.html',
        },
        steps: [
          'In the PingFederate administrative console, go to **Applications** > **OAuth** > **Clients** and select **Add Client**.',
          'Enter a **Client ID** and a **Name**; under **Client Authentication**, choose **Client Secret** and **Generate Secret** (copy it now).',
          'Paste the redirect URI into **Redirect URIs** and select **Add**.',
          'Under **Allowed Grant Types**, select **Authorization Code**; under **OpenID Connect**, choose a **Policy** whose ID token carries the e-mail address (`email` in its attribute contract), then **Save**.',
          `Your PingFederate base URL (\`https://<your PingFederate host>\`) is the issuer: you give it, with the client ID and secret, ${GIVE_IT_BACK}.`,
        ],
        fields: {
          redirectUri: 'Redirect URIs',
          scopes: 'Policy',
        },
      },
    },
  },
  {
    id: 'keycloak',
    name: 'Keycloak',
    protocols: {
      Saml2: {
        docs: {
          title: 'Keycloak Server Administration Guide: Creating a SAML client',
          url: 'https://www.keycloak.org/docs/latest/server_admin/index.html#_client-saml-configuration',
        },
        steps: [
          'In the Keycloak admin console, in your realm, go to **Clients** and select **Create client** (or **Import client** with the metadata file below).',
          'Choose the **Client type** **SAML**, paste the entity ID as the **Client ID** and select **Next**, then **Save**.',
          'In **Settings**, paste the ACS URL into **Valid redirect URIs** and **Master SAML Processing URL**; under **SAML capabilities** set **Name ID format** to **persistent**; under **Signature and Encryption** keep **Sign assertions** on.',
          'On the **Keys** tab, turn **Client signature required** off (this application does not sign its requests).',
          "On the **Client scopes** tab, open the client's dedicated scope, **Add mapper** > **By configuration** > **User Property**: property **email**, **SAML Attribute Name** the e-mail attribute name below, **SAML Attribute NameFormat** **URI Reference**. For roles from groups, add a **Group list** mapper named the groups attribute name.",
          `Your realm's metadata is \`https://<your Keycloak host>/realms/<realm>/protocol/saml/descriptor\`: you give it ${GIVE_IT_BACK}.`,
        ],
        fields: {
          metadataFile: 'Import client',
          entityId: 'Client ID',
          acsUrl: 'Master SAML Processing URL',
          nameIdFormat: 'Name ID format',
          emailAttribute: 'SAML Attribute Name',
          groupsAttribute: 'Group list',
        },
      },
      OpenIdConnect: {
        docs: {
          title: 'Keycloak Server Administration Guide: Creating an OpenID Connect client',
          url: 'https://www.keycloak.org/docs/latest/server_admin/index.html#_oidc_clients',
        },
        steps: [
          'In the Keycloak admin console, in your realm, go to **Clients** and select **Create client**.',
          'Choose the **Client type** **OpenID Connect**, enter a **Client ID** and select **Next**.',
          'Turn **Client authentication** on and keep **Standard flow** selected; select **Next**.',
          'Paste the redirect URI into **Valid redirect URIs** and the post-logout redirect URI into **Valid post logout redirect URIs**; **Save**.',
          'Under **Logout settings**, either keep **Front channel logout** on and paste the front-channel logout URL into **Front-channel logout URL**, or paste the back-channel logout URL into **Backchannel logout URL**.',
          `On the **Credentials** tab, copy the **Client Secret**; the issuer is \`https://<your Keycloak host>/realms/<realm>\`. You give them ${GIVE_IT_BACK}.`,
        ],
        fields: {
          redirectUri: 'Valid redirect URIs',
          postLogoutRedirectUri: 'Valid post logout redirect URIs',
          frontchannelLogoutUri: 'Front-channel logout URL',
          backchannelLogoutUri: 'Backchannel logout URL',
        },
      },
    },
  },
  {
    id: 'other-saml',
    name: 'Another SAML 2.0 identity provider',
    protocols: {
      Saml2: {
        steps: [
          "In your identity provider, add a SAML 2.0 application (a service provider, or relying party). If it imports a **service provider's metadata**, give it the metadata file or URL below and skip to the attributes.",
          'Enter the ACS URL as the **Assertion Consumer Service URL** (binding HTTP-POST) and the entity ID as the **entity ID** (or audience).',
          'Sign the assertions. Send a **NameID** in the persistent format (an e-mail address works too; a transient one does not).',
          'Release the e-mail attribute below (required), and the name and groups attributes if you have them, under these **attribute names**.',
          `Give the people who sign in access, then note your identity provider's metadata URL (or download its metadata): you give it ${GIVE_IT_BACK}.`,
        ],
        fields: {
          acsUrl: 'Assertion Consumer Service URL',
          entityId: 'entity ID',
          metadataFile: "service provider's metadata",
          metadataUrl: "service provider's metadata",
          nameIdFormat: 'NameID',
          emailAttribute: 'attribute names',
          nameAttribute: 'attribute names',
          groupsAttribute: 'attribute names',
        },
      },
    },
  },
  {
    id: 'other-oidc',
    name: 'Another OpenID Connect provider',
    protocols: {
      OpenIdConnect: {
        steps: [
          'In your OpenID provider, register a **confidential web application** (a client with a secret) that uses the authorization code flow.',
          'Register the redirect URI below as its **redirect URI**, and the post-logout redirect URI as its **post-logout redirect URI**.',
          'If your provider offers them, register the back-channel logout URL as its **backchannel_logout_uri** or the front-channel one as its **frontchannel_logout_uri**.',
          'Let it be granted the **scopes** below, so that the ID token or user info carries the e-mail address.',
          `Copy the client ID, the client secret and the issuer URL (where \`/.well-known/openid-configuration\` is found): you give them ${GIVE_IT_BACK}.`,
        ],
        fields: {
          redirectUri: 'redirect URI',
          postLogoutRedirectUri: 'post-logout redirect URI',
          backchannelLogoutUri: 'backchannel_logout_uri',
          frontchannelLogoutUri: 'frontchannel_logout_uri',
          scopes: 'scopes',
        },
      },
    },
  },
];

export function vendorGuide(id: string | undefined): VendorGuide | undefined {
  return VENDOR_GUIDES.find((guide) => guide.id === id);
}

export function isGuideProtocol(value: string | undefined): value is GuideProtocol {
  return value === 'Saml2' || value === 'OpenIdConnect';
}

/** The protocols a vendor is offered with here, SAML first. */
export function protocolsOf(guide: VendorGuide): GuideProtocol[] {
  return (['Saml2', 'OpenIdConnect'] as const).filter((protocol) => guide.protocols[protocol] !== undefined);
}

/** One piece of a step: plain text, a name on the vendor's screen (`**...**`), or a value to type (`` `...` ``). */
export interface StepSegment {
  text: string;
  kind: 'text' | 'screen' | 'code';
}

/** A step cut into its pieces, for the page to mark up (every piece is escaped as text there). */
export function stepSegments(step: string): StepSegment[] {
  return step
    .split(/(\*\*.+?\*\*|`[^`]+`)/)
    .filter((piece) => piece !== '')
    .map((piece): StepSegment => {
      if (piece.startsWith('**') && piece.endsWith('**') && piece.length > 4)
        return { text: piece.slice(2, -2), kind: 'screen' };
      if (piece.startsWith('`') && piece.endsWith('`') && piece.length > 2)
        return { text: piece.slice(1, -1), kind: 'code' };
      return { text: piece, kind: 'text' };
    });
}
