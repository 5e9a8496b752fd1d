/**
 * Two profiles side by side (two hosts, two versions, two runtime signatures): the conditions that differ, and per
 * cell measured in both the ratio r = L_B(t,b) / L_A(t,b) of mean batch latencies (r < 1: B is faster). The summary
 * ratio is the geometric mean, so ×2 in one cell and ÷2 in another cancel out.
 */
import { cellKey, indexCells, type ProfileCellData } from "./profile-grid-data";

export interface ComparedProfile {
  id: string;
  label: string;
  model: { name: string; version: number };
  hostName: string;
  hardwareClass: string;
  runtimeSignature: string;
  cores: number;
  dimensions: Record<string, number>;
  stoppingRule: { kind: string };
  perturbed: boolean;
  perturbedRatePerS: number | null;
  status: string;
  threads: readonly number[];
  batches: readonly number[];
  cells: readonly ProfileCellData[];
}

export interface ComparedCell {
  threads: number;
  batch: number;
  aMs: number;
  bMs: number;
  /** L_B / L_A. */
  ratio: number;
}

export interface Condition {
  field: string;
  a: string;
  b: string;
  differs: boolean;
}

export interface ProfileComparison {
  conditions: Condition[];
  cells: ComparedCell[];
  /** The union of both grids' axes, for one heatmap over both. */
  threads: number[];
  batches: number[];
  onlyA: Array<{ threads: number; batch: number }>;
  onlyB: Array<{ threads: number; batch: number }>;
  /** Geometric mean of the ratios, the smallest and the largest; null when no cell is in both. */
  summary: { geometricMean: number; min: number; max: number; bFaster: number; aFaster: number } | null;
}

const dims = (d: Record<string, number>) => {
  const keys = Object.keys(d).sort();
  return keys.length ? keys.map((k) => `${k}=${d[k]}`).join(", ") : "batch only";
};

/** The form's preset names: "fixed" is the paper's 10 + 100. */
export const ruleName = (kind: string) =>
  kind === "fixed" ? "paper (10 + 100)" : kind === "decision" ? "decision-aware" : kind;

export function compareProfiles(a: ComparedProfile, b: ComparedProfile): ProfileComparison {
  const perturbed = (p: ComparedProfile) => (p.perturbed ? `yes (${p.perturbedRatePerS ?? "?"} requests/s)` : "no");
  const rows: Array<[string, string, string]> = [
    ["model version", `${a.model.name} v${a.model.version}`, `${b.model.name} v${b.model.version}`],
    ["host", a.hostName, b.hostName],
    ["hardware class", a.hardwareClass, b.hardwareClass],
    ["runtime signature", a.runtimeSignature, b.runtimeSignature],
    ["core budget (T)", String(a.cores), String(b.cores)],
    ["input dimensions", dims(a.dimensions), dims(b.dimensions)],
    ["stopping rule", ruleName(a.stoppingRule.kind), ruleName(b.stoppingRule.kind)],
    ["perturbed", perturbed(a), perturbed(b)],
    ["status", a.status, b.status],
  ];
  const conditions = rows.map(([field, x, y]) => ({ field, a: x, b: y, differs: x !== y }));

  const atB = indexCells(b.cells);
  const atA = indexCells(a.cells);
  const cells: ComparedCell[] = [];
  for (const ca of [...a.cells].sort((x, y) => x.threads - y.threads || x.batch - y.batch)) {
    const cb = atB.get(cellKey(ca.threads, ca.batch));
    if (cb && ca.meanMs > 0 && cb.meanMs > 0)
      cells.push({
        threads: ca.threads,
        batch: ca.batch,
        aMs: ca.meanMs,
        bMs: cb.meanMs,
        ratio: cb.meanMs / ca.meanMs,
      });
  }
  const onlyA = a.cells
    .filter((c) => !atB.has(cellKey(c.threads, c.batch)))
    .map(({ threads, batch }) => ({ threads, batch }));
  const onlyB = b.cells
    .filter((c) => !atA.has(cellKey(c.threads, c.batch)))
    .map(({ threads, batch }) => ({ threads, batch }));
  const ratios = cells.map((c) => c.ratio);
  const summary = ratios.length
    ? {
        geometricMean: Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length),
        min: Math.min(...ratios),
        max: Math.max(...ratios),
        bFaster: ratios.filter((r) => r < 1).length,
        aFaster: ratios.filter((r) => r > 1).length,
      }
    : null;
  const union = (x: readonly number[], y: readonly number[]) => [...new Set([...x, ...y])].sort((p, q) => p - q);
  return {
    conditions,
    cells,
    threads: union(a.threads, b.threads),
    batches: union(a.batches, b.batches),
    onlyA,
    onlyB,
    summary,
  };
}

/** "B is 1.25× slower" / "B is 1.6× faster" / "the same": how a ratio L_B / L_A reads. */
export function describeRatio(ratio: number, digits = 3): string {
  if (!Number.isFinite(ratio) || ratio <= 0) return "—";
  const rounded = Number(ratio.toPrecision(digits));
  if (rounded === 1) return "the same";
  return ratio > 1
    ? `${Number(ratio.toPrecision(digits))}× slower`
    : `${Number((1 / ratio).toPrecision(digits))}× faster`;
}
