// Summaries of raw timing samples for benchmarks (exact order statistics; samples are few enough to sort).
export interface SampleSummary {
  n: number;
  mean: number;
  stddev: number;
  p25: number;
  p50: number;
  p75: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
}

export function summarize(samples: number[]): SampleSummary {
  if (samples.length === 0) throw new RangeError("summarize: no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  const variance = sorted.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, sorted.length - 1);
  return {
    n: sorted.length,
    mean,
    stddev: Math.sqrt(variance),
    p25: at(0.25),
    p50: at(0.5),
    p75: at(0.75),
    p90: at(0.9),
    p99: at(0.99),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  };
}
