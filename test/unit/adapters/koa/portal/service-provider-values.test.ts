import { expect } from 'chai';
import {
  PERSISTENT_NAME_ID,
  portalEntityId,
  portalServiceProviderMetadata,
  serviceProviderValues,
  type PortalValue,
} from '../../../../../src/adapters/koa/portal/service-provider-values.js';

const ORIGIN = 'https://app.example.com';
const byName = (values: PortalValue[]) => Object.fromEntries(values.map((value) => [value.name, value.value]));

describe('the setup portal: the values an IT admin enters', () => {
  it('gives a SAML connection its ACS URL, its entity ID (the ACS URL by convention), its metadata URL and the attributes', () => {
    expect(byName(serviceProviderValues('Saml2', ORIGIN, 'Acme'))).to.deep.equal({
      acsUrl: 'https://app.example.com/connections/acme/saml2/acs',
      entityId: 'https://app.example.com/connections/acme/saml2/acs',
      metadataUrl: 'https://app.example.com/connections/acme/saml2/acs',
      nameIdFormat: PERSISTENT_NAME_ID,
      emailAttribute: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
      nameAttribute: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
      groupsAttribute: 'http://schemas.xmlsoap.org/claims/Group',
    });
    expect(portalEntityId(ORIGIN, 'Acme')).to.equal('https://app.example.com/connections/acme/saml2/acs');
  });

  it('takes what a saved SAML connection set: its entity ID, and the logout URL once single logout is on', () => {
    const values = byName(
      serviceProviderValues('Saml2', ORIGIN, 'acme', { EntityId: 'https://app.example.com/sp', SingleLogout: true }),
    );
    expect(values.entityId).to.equal('https://app.example.com/sp');
    expect(values.logoutUrl).to.equal('https://app.example.com/connections/acme/saml2/logout');
    expect(byName(serviceProviderValues('Saml2', ORIGIN, 'acme', { EntityId: ' ' })).entityId).to.equal(
      'https://app.example.com/connections/acme/saml2/acs',
    );
  });

  it('gives an OpenID Connect connection its redirect URI, logout URLs and scopes', () => {
    expect(byName(serviceProviderValues('OpenIdConnect', ORIGIN, 'globex'))).to.deep.equal({
      redirectUri: 'https://app.example.com/connections/globex/signin-oidc',
      postLogoutRedirectUri: 'https://app.example.com/',
      frontchannelLogoutUri: 'https://app.example.com/connections/globex/frontchannel-logout',
      backchannelLogoutUri: 'https://app.example.com/connections/globex/backchannel-logout',
      scopes: 'openid profile email',
    });
  });

  it('leaves out a logout URL a saved connection turned off, and gives its own scopes', () => {
    const values = byName(
      serviceProviderValues('OpenIdConnect', ORIGIN, 'globex', {
        BackchannelLogoutPath: '',
        Scopes: ['openid', 'email'],
      }),
    );
    expect(values).to.not.have.property('backchannelLogoutUri');
    expect(values.frontchannelLogoutUri).to.equal('https://app.example.com/connections/globex/frontchannel-logout');
    expect(values.scopes).to.equal('openid email');
  });

  it('makes the SAML metadata of a connection not saved yet with the function its ACS serves it with', () => {
    const xml = portalServiceProviderMetadata(ORIGIN, 'acme');
    expect(xml).to.include('entityID="https://app.example.com/connections/acme/saml2/acs"');
    expect(xml).to.include(
      'Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://app.example.com/connections/acme/saml2/acs"',
    );
    expect(xml).to.include('WantAssertionsSigned="true"');
    expect(xml).to.not.include('SingleLogoutService');
  });
});
