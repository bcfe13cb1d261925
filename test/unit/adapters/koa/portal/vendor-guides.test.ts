import { expect } from 'chai';
import {
  VENDOR_GUIDES,
  protocolsOf,
  stepSegments,
  vendorGuide,
  type GuideProtocol,
  type ProtocolGuide,
  type ValueName,
} from '../../../../../src/adapters/koa/portal/vendor-guides.js';

/** Every guide of every vendor, named for the messages. */
const guides: Array<[string, GuideProtocol, ProtocolGuide]> = VENDOR_GUIDES.flatMap((vendor) =>
  protocolsOf(vendor).map((protocol): [string, GuideProtocol, ProtocolGuide] => [
    `${vendor.name} (${protocol})`,
    protocol,
    vendor.protocols[protocol] as ProtocolGuide,
  ]),
);

/** What a guide of each protocol must say where to put: without these the connection cannot work. */
const REQUIRED: Record<GuideProtocol, ValueName[]> = {
  Saml2: ['acsUrl', 'entityId', 'emailAttribute'],
  OpenIdConnect: ['redirectUri'],
};

describe('the setup portal: vendor guides', () => {
  it('lists the vendors the portal offers, each once, each with at least one protocol', () => {
    expect(VENDOR_GUIDES.map((vendor) => vendor.id)).to.deep.equal([
      'okta',
      'entra-id',
      'google-workspace',
      'adfs',
      'onelogin',
      'jumpcloud',
      'pingfederate',
      'keycloak',
      'other-saml',
      'other-oidc',
    ]);
    for (const vendor of VENDOR_GUIDES) expect(protocolsOf(vendor), vendor.id).to.not.be.empty;
    expect(vendorGuide('okta')?.name).to.equal('Okta');
    expect(vendorGuide('nope')).to.equal(undefined);
    expect(vendorGuide(undefined)).to.equal(undefined);
  });

  it('offers SAML 2.0 with every vendor but "other OpenID Connect", and OpenID Connect where the vendor connects one organization by it', () => {
    const offering = (protocol: GuideProtocol) =>
      VENDOR_GUIDES.filter((vendor) => vendor.protocols[protocol]).map((vendor) => vendor.id);
    expect(offering('Saml2')).to.deep.equal(VENDOR_GUIDES.map((v) => v.id).filter((id) => id !== 'other-oidc'));
    expect(offering('OpenIdConnect')).to.deep.equal([
      'okta',
      'entra-id',
      'onelogin',
      'jumpcloud',
      'pingfederate',
      'keycloak',
      'other-oidc',
    ]);
  });

  it('says why a vendor that has OpenID Connect is offered without it', () => {
    for (const id of ['google-workspace', 'adfs']) expect(vendorGuide(id)?.note, id).to.match(/SAML 2.0 only/);
  });

  for (const [name, protocol, guide] of guides) {
    describe(name, () => {
      it('has steps', () => {
        expect(guide.steps.length).to.be.greaterThan(2);
        for (const step of guide.steps) expect(step.trim()).to.not.equal('');
      });

      it('names, in its steps, every field it tells the admin to fill', () => {
        const named = guide.steps.flatMap((step) =>
          stepSegments(step)
            .filter((segment) => segment.kind === 'screen')
            .map((segment) => segment.text),
        );
        for (const [value, field] of Object.entries(guide.fields)) {
          expect(named, `${value} goes in "${field}"`).to.include(field);
        }
      });

      it(`says where the values ${REQUIRED[protocol].join(', ')} go`, () => {
        for (const value of REQUIRED[protocol]) expect(guide.fields[value], value).to.be.a('string');
      });

      it('marks its screens and values in balanced pairs', () => {
        for (const step of guide.steps) {
          for (const segment of stepSegments(step).filter((piece) => piece.kind === 'text')) {
            expect(segment.text, step).to.not.include('**').and.not.include('`');
          }
        }
      });
    });
  }

  it("links each named vendor's guide to its own documentation, over https", () => {
    for (const [name, , guide] of guides.filter(([name]) => !name.startsWith('Another'))) {
      expect(guide.docs?.url, name).to.match(/^https:\/\//);
      expect(guide.docs?.title, name).to.be.a('string').and.not.equal('');
    }
  });

  it('cuts a step into text, screen names and values to type', () => {
    expect(stepSegments('Set **Name ID format** to **Persistent** and the value `user.email`.')).to.deep.equal([
      { text: 'Set ', kind: 'text' },
      { text: 'Name ID format', kind: 'screen' },
      { text: ' to ', kind: 'text' },
      { text: 'Persistent', kind: 'screen' },
      { text: ' and the value ', kind: 'text' },
      { text: 'user.email', kind: 'code' },
      { text: '.', kind: 'text' },
    ]);
    expect(stepSegments('plain <b>text</b>')).to.deep.equal([{ text: 'plain <b>text</b>', kind: 'text' }]);
  });
});
