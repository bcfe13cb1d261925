import { expect } from 'chai';
import { serviceProviderValues } from '../../../src/adapters/koa/portal/service-provider-values.js';
import { PROTOCOL_NAMES, VENDOR_GUIDES, protocolsOf } from '../../../src/adapters/koa/portal/vendor-guides.js';
import { readDoc } from './markdown.js';

const DOC = 'docs/setup-portal-it-admin.md';

/** A value as the page shows it for a connection, as the page for the IT admin writes it: `<application>`, `<connection>`. */
function asDocumented(value: string): string {
  return value
    .replace('https://application.invalid', 'https://<application>')
    .replace('/connections/connection/', '/connections/<connection>/');
}

/**
 * The page an operator sends the customer's IT admin says what the setup portal's pages do:
 * every vendor's steps as the portal shows them, the vendors and protocols it offers, and
 * the values it gives.
 */
describe('docs/setup-portal-it-admin.md', () => {
  const markdown = readDoc(DOC);
  const lines = markdown.split('\n');

  it("holds each vendor's steps for each protocol, as the portal shows them, in order, with the vendor's page", () => {
    for (const vendor of VENDOR_GUIDES) {
      for (const protocol of protocolsOf(vendor)) {
        const guide = vendor.protocols[protocol]!;
        const heading = `### ${vendor.name}: ${PROTOCOL_NAMES[protocol]}`;
        const start = lines.indexOf(heading);
        expect(start, heading).to.be.greaterThan(-1);
        const next = lines.findIndex((line, index) => index > start && line.startsWith('#'));
        const section = lines.slice(start, next === -1 ? undefined : next);
        const numbered = section.filter((line) => /^\d+\. /.test(line));
        expect(numbered, heading).to.deep.equal(guide.steps.map((step, index) => `${index + 1}. ${step}`));
        if (guide.docs) expect(section.join('\n'), heading).to.include(`[${guide.docs.title}](${guide.docs.url})`);
      }
    }
  });

  it('lists each vendor with the protocols it is offered with', () => {
    for (const vendor of VENDOR_GUIDES) {
      const row = lines.find((line) => line.startsWith(`| ${vendor.name} |`));
      expect(row, vendor.name).to.be.a('string');
      const [saml = '', oidc = ''] = (row ?? '')
        .split('|')
        .slice(2, 4)
        .map((cell) => cell.trim());
      const offered = protocolsOf(vendor);
      expect(saml.startsWith('yes'), `${vendor.name}: SAML 2.0`).to.equal(offered.includes('Saml2'));
      expect(oidc.startsWith('yes'), `${vendor.name}: OpenID Connect`).to.equal(offered.includes('OpenIdConnect'));
    }
  });

  it('gives the values the portal gives, for either protocol', () => {
    for (const protocol of ['Saml2', 'OpenIdConnect'] as const) {
      const values = serviceProviderValues(protocol, 'https://application.invalid', 'connection', {
        SingleLogout: true,
      });
      for (const { name, value } of values) expect(markdown, name).to.include(`\`${asDocumented(value)}\``);
    }
  });
});
