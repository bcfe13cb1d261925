import { expect } from 'chai';
import { openIdConnect } from '../../../src/adapters/oidc/open-id-connect.js';
import { saml2 } from '../../../src/adapters/saml/saml2.js';
import { adapterOf, outcomeOf } from '../../support/adapter-of.js';

/** A fetch that records the addresses asked of it and answers none (as the guard refusing them would). */
function refusingFetch() {
  const asked: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    asked.push(input instanceof Request ? input.url : String(input));
    throw new TypeError('refused by the test');
  }) as typeof globalThis.fetch;
  return { fetch, asked };
}

/**
 * The adapters send their own requests through the context's `fetch` when it is given (the
 * composition root gives the address-guarded one to a connection an organization declared),
 * so that none of them escapes the guard: OpenID discovery, SAML metadata.
 */
describe("the identity adapters' own requests go through the fetch their context gives", () => {
  it('OpenID Connect: discovery asks the given fetch, and the sign-in is refused as unreachable', async () => {
    const { fetch, asked } = refusingFetch();
    const provider = await adapterOf(
      openIdConnect,
      { Authority: 'https://idp.customer.example', ClientId: 'client', ClientSecret: 'SENTINEL-secret' },
      { fetch },
    );
    expect(await outcomeOf(provider.beginChallenge())).to.equal('idp.unreachable');
    expect(asked).to.deep.equal(['https://idp.customer.example/.well-known/openid-configuration']);
  });

  it('SAML: the metadata is fetched through the given fetch, and the sign-in is refused as unreachable', async () => {
    const { fetch, asked } = refusingFetch();
    const provider = await adapterOf(
      saml2,
      {
        EntityId: 'https://app.example.com/saml',
        MetadataUrl: 'https://idp.customer.example/metadata',
        IdpEntityId: 'https://idp.customer.example',
      },
      { fetch },
    );
    expect(await outcomeOf(provider.beginChallenge())).to.equal('idp.unreachable');
    expect(asked).to.deep.equal(['https://idp.customer.example/metadata']);
  });
});
