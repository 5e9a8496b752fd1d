// The Benchmarks page's speedup chart reads the Packrat benchmark's figures back: one bar per model × B and
// baseline, with the min–max over repetitions. Pure.
export interface FigureLike {
  label: string;
  value: number;
  spread?: { low?: number; high?: number };
}

export interface SpeedupBar {
  /** "ResNet-50 224×224, B=8" */
  group: string;
  model: string;
  batch: number;
  baseline: "default" | "one-thread";
  value: number;
  low: number | null;
  high: number | null;
}

const SPEEDUP =
  /^speedup of Packrat over (⟨1,\d+,B⟩|one-thread) \(mean latency, paired per repetition\), (.+), B=(\d+)$/;

/** Speedup figures of bench/packrat.bench.ts, in the order they were written (model by model, B ascending). */
export function speedupBars(figures: readonly FigureLike[]): SpeedupBar[] {
  const bars: SpeedupBar[] = [];
  for (const f of figures) {
    const m = SPEEDUP.exec(f.label);
    if (!m || !Number.isFinite(f.value)) continue;
    const [, baseline, model, batch] = m;
    bars.push({
      group: `${model}, B=${batch}`,
      model: model!,
      batch: Number(batch),
      baseline: baseline === "one-thread" ? "one-thread" : "default",
      value: f.value,
      low: Number.isFinite(f.spread?.low) ? f.spread!.low! : null,
      high: Number.isFinite(f.spread?.high) ? f.spread!.high! : null,
    });
  }
  return bars;
}

/** One row per model × B with both baselines' speedups side by side (null where a baseline is missing). */
export function speedupRows(bars: readonly SpeedupBar[]): Array<{
  group: string;
  vsDefault: number | null;
  vsOneThread: number | null;
  defaultRange: [number, number] | null;
  oneThreadRange: [number, number] | null;
}> {
  const rows = new Map<
    string,
    {
      group: string;
      vsDefault: number | null;
      vsOneThread: number | null;
      defaultRange: [number, number] | null;
      oneThreadRange: [number, number] | null;
    }
  >();
  for (const b of bars) {
    const row = rows.get(b.group) ?? {
      group: b.group,
      vsDefault: null,
      vsOneThread: null,
      defaultRange: null,
      oneThreadRange: null,
    };
    const range: [number, number] | null = b.low !== null && b.high !== null ? [b.low, b.high] : null;
    if (b.baseline === "default") {
      row.vsDefault = b.value;
      row.defaultRange = range;
    } else {
      row.vsOneThread = b.value;
      row.oneThreadRange = range;
    }
    rows.set(b.group, row);
  }
  return [...rows.values()];
}
