import { expect } from 'chai';
import { projectTemplateSchema } from '../../../src/adapters/config/schema.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { readDoc, withoutCodeBlocks } from './markdown.js';

type Schema = { properties?: Record<string, Schema>; additionalProperties?: Schema | boolean };

/**
 * Every key of the settings schema, below `ProjectTemplate`: the leaves of its object
 * tree. A section that is a map of sections (`Connections`) is documented as `<Name>`.
 */
function schemaKeys(schema: Schema, prefix = ''): string[] {
  const free = schema.additionalProperties;
  if (typeof free === 'object' && free.properties) return [prefix, ...schemaKeys(free, `${prefix}:<Name>`)];
  if (!schema.properties) return [prefix];
  return Object.entries(schema.properties).flatMap(([name, child]) =>
    schemaKeys(child, prefix === '' ? name : `${prefix}:${name}`),
  );
}

/**
 * The keys docs/configuration.md documents: each heading naming a section (`ProjectTemplate:...`
 * in backticks, several for sections that share a table) followed by tables whose first
 * column names keys below it. `<ProviderKey>` stands for every provider's key.
 */
function documentedKeys(markdown: string, providerKeys: readonly string[]): { sections: string[]; key: string }[] {
  const documented: { sections: string[]; key: string }[] = [];
  let sections: string[] = [];
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    if (/^#{1,6}\s/.test(line)) {
      sections = [...line.matchAll(/`ProjectTemplate(?::([A-Za-z0-9:<>]+))?`/g)].map((match) => match[1] ?? '');
      continue;
    }
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    if (sections.length === 0 || /^[\s:-]*$/.test(firstCell)) continue;
    for (const [, name = ''] of firstCell.matchAll(/`([A-Za-z][A-Za-z0-9:<>]*)`/g)) {
      const expanded = name.includes('<ProviderKey>')
        ? providerKeys.map((key) => name.replace('<ProviderKey>', key))
        : [name];
      for (const key of expanded) documented.push({ sections, key });
    }
  }
  return documented;
}

describe('docs/configuration.md', () => {
  const keys = schemaKeys(projectTemplateSchema(builtInProviders) as Schema);
  let documented: { sections: string[]; key: string }[];
  let documentedPaths: Set<string>;
  before(() => {
    const providerKeys = builtInProviders.map((provider) => provider.key);
    documented = documentedKeys(readDoc('docs/configuration.md'), providerKeys);
    documentedPaths = new Set(
      documented.flatMap(({ sections, key }) => sections.map((section) => (section ? `${section}:${key}` : key))),
    );
  });

  it('derives the keys from the settings schema, providers included', () => {
    expect(keys).to.include('Authentication:Providers:Saml2:ModulePath').and.include('Session:Redis:Url');
    expect(keys.length).to.be.greaterThan(60);
  });

  it('documents every key of the settings schema under its section', () => {
    expect(keys.filter((key) => !documentedPaths.has(key))).to.deep.equal([]);
  });

  it('documents no key the schema does not have', () => {
    const known = new Set(keys);
    const unknown = documented.filter(({ sections, key }) =>
      sections.every((section) => !known.has(section ? `${section}:${key}` : key)),
    );
    expect(unknown.map(({ sections, key }) => `${sections.join(', ')}: ${key}`)).to.deep.equal([]);
  });
});
