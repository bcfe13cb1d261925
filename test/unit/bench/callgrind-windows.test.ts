import { expect } from 'chai';
import { MAX_WINDOWS, compilerJobsIn, judgeWindows } from '../../../scripts/bench/callgrind.js';

describe('bench: how many callgrind windows a row is counted for', () => {
  it('goes on after one window, whatever it read', () => {
    expect(judgeWindows([256_000])).to.deep.equal({ countAnother: true, fewest: 256_000, agreed: false });
  });

  it('stops when two windows agree within 1%, keeping the fewer', () => {
    expect(judgeWindows([258_300, 256_100])).to.deep.equal({ countAnother: false, fewest: 256_100, agreed: true });
  });

  it('goes on while a window read high (the optimizing compiler at work in it)', () => {
    expect(judgeWindows([256_051, 300_488])).to.deep.include({ countAnother: true, agreed: false });
  });

  it('judges by the two fewest, wherever they fall among the windows', () => {
    expect(judgeWindows([300_488, 256_051, 320_000, 257_900])).to.deep.equal({
      countAnother: false,
      fewest: 256_051,
      agreed: true,
    });
  });

  it('two windows both reading high do not agree with a clean one', () => {
    expect(judgeWindows([273_087, 290_000, 256_051])).to.deep.include({ countAnother: true, fewest: 256_051 });
  });

  it('stops at the last window allowed, reporting the fewest and that none agreed', () => {
    const counts = Array.from({ length: MAX_WINDOWS }, (_, index) => 200_000 + index * 10_000).reverse();
    expect(judgeWindows(counts)).to.deep.equal({ countAnother: false, fewest: 200_000, agreed: false });
  });

  it("stops at a row's own limit when its plan sets one (the SAML row's two)", () => {
    expect(judgeWindows([127_583_935, 133_120_397], 2)).to.deep.equal({
      countAnother: false,
      fewest: 127_583_935,
      agreed: false,
    });
  });
});

describe("bench: the optimizing compiler's share of a callgrind window", () => {
  const annotated = [
    '1,476,000,000 (100.0%)  PROGRAM TOTALS',
    '  453,840,490 (30.75%)  ???:Builtins_CompileLazy [/usr/bin/node]',
    '  149,125,205 (10.10%)  ???:v8::internal::Runtime_CompileOptimized(int, unsigned long*, v8::internal::Isolate*) [/usr/bin/node]',
    '  149,123,671 (10.10%)  ???:v8::internal::Compiler::CompileOptimized(v8::internal::Isolate*, v8::internal::Handle<v8::internal::JSFunction>, v8::internal::ConcurrencyMode, v8::internal::CodeKind) [/usr/bin/node]',
    '   12,000,000 ( 0.81%)  ???:v8::internal::Compiler::CompileOptimizedOSR(v8::internal::Isolate*) [/usr/bin/node]',
    '  148,154,679 (10.04%)  ???:v8::internal::compiler::PipelineCompilationJob::ExecuteJobImpl(v8::internal::RuntimeCallStats*) [/usr/bin/node]',
  ].join('\n');

  it("takes the compiler's entry points, inclusive, and nothing they call or that calls them", () => {
    expect(compilerJobsIn(annotated)).to.equal(149_123_671 + 12_000_000);
  });

  it('reads nothing in a window where the compiler did not run', () => {
    expect(
      compilerJobsIn('1,000 (100.0%)  PROGRAM TOTALS\n  500 (50.00%)  ???:Builtins_LoadIC [/usr/bin/node]'),
    ).to.equal(0);
  });
});
