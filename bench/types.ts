/** The contract every benchmark under bench/ fulfils; bench/run.ts runs them and writes the results. */
export interface BenchFigure {
  /** What was measured, e.g. "p50 latency, agent, tiny CNN b=1 (binary)". */
  label: string;
  value: number;
  unit: string;
  /** Spread of the repeated measurements (e.g. stddev or p10–p90), in the same unit. */
  spread?: { kind: "stddev" | "iqr" | "min-max" | "ci95"; low?: number; high?: number; value?: number };
  samples?: number;
}

export interface BenchTable {
  title: string;
  columns: string[];
  rows: Array<Array<string | number>>;
}

export interface BenchOutput {
  figures: BenchFigure[];
  tables?: BenchTable[];
  /** Caveats: what was skipped and why, what the baseline is. */
  notes?: string[];
}

export interface Benchmark {
  name: string;
  description: string;
  run(options: { quick: boolean }): Promise<BenchOutput>;
}
