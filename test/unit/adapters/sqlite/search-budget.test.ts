import { expect } from 'chai';
import { SLOW_SEARCH_MS, SearchBudget } from '../../../../src/adapters/sqlite/search-budget.js';

/** A budget of `msPerMinute` on a clock the test moves. */
function budgetOf(msPerMinute: number) {
  let now = 1_000_000;
  const budget = new SearchBudget(msPerMinute, () => now);
  return { budget, advance: (ms: number) => (now += ms) };
}

describe('SearchBudget: each organization’s share of slow searches on the embedded store', () => {
  it('lets fast searches through however many there are: an indexed lookup spends nothing', () => {
    const { budget } = budgetOf(1_000);
    for (let search = 0; search < 10_000; search += 1) budget.spend('acme', SLOW_SEARCH_MS - 0.01);
    expect(budget.retryAfterMs('acme')).to.equal(0);
  });

  it('refuses an organization once its slow searches spent the share, and says when it may search again', () => {
    const { budget } = budgetOf(1_000);
    budget.spend('hostile', 400);
    budget.spend('hostile', 400);
    expect(budget.retryAfterMs('hostile'), 'with 200 ms left').to.equal(0);
    budget.spend('hostile', 430);
    // 230 ms past zero (and one more) at 1,000 ms a minute: 231 × 60 ms.
    expect(budget.retryAfterMs('hostile')).to.equal(13_860);
  });

  it('refuses that organization only: another one’s searches go on', () => {
    const { budget } = budgetOf(1_000);
    budget.spend('hostile', 1_500);
    expect(budget.retryAfterMs('hostile')).to.be.above(0);
    expect(budget.retryAfterMs('neighbour')).to.equal(0);
    budget.spend('neighbour', 900);
    expect(budget.retryAfterMs('neighbour')).to.equal(0);
  });

  it('refills at the share a minute: the organization searches again after the time it was told, not before', () => {
    const { budget, advance } = budgetOf(1_000);
    budget.spend('hostile', 1_500);
    const wait = budget.retryAfterMs('hostile');
    advance(wait - 100);
    expect(budget.retryAfterMs('hostile'), 'just before').to.be.above(0);
    advance(100);
    expect(budget.retryAfterMs('hostile'), 'at the time told').to.equal(0);
  });

  it('refills to the share and no further: a quiet hour buys no burst', () => {
    const { budget, advance } = budgetOf(1_000);
    budget.spend('acme', 20);
    advance(3_600_000);
    budget.spend('acme', 600);
    budget.spend('acme', 600);
    expect(budget.retryAfterMs('acme')).to.be.above(0);
  });
});
