/**
 * The Optimizer page's data shaping (issue #16), pure so it is tested without a browser: the shareable URL state,
 * the B and timeout inputs, profile choices (incompatible ones disabled with what differs), ⟨i,t,b⟩ text, the
 * latency-vs-B chart rows, the planned core map, and the batching validator on the candidate (B, timeout).
 */
import { validateBatchingCandidate, type BatchingValidation } from "@/core/batching/config-validator";
import { serviceTimeMs, type ServiceTimeModel } from "@/core/batching/service-time";
import { fitServiceTime } from "@/core/batching/service-time-fit";
import { parseCpuList } from "@/core/topology/cpulist";
import type { CsvTable } from "@/lib/planning/csv";
import { formatSig } from "@/lib/planning/format";

/** The view in the address bar: deployment, profile, B and (when not the running one) the batch timeout. */
export interface OptimizerUrlState {
  deployment: string | null;
  profile: string | null;
  /** Raw text of the B field, so a half-typed value survives a reload as typed. */
  batch: string;
  /** Raw text of the timeout field; empty means "the running plan's timeout". */
  timeout: string;
  /** "batching": B and the timeout came from the batching page's validator ("Propose this"). */
  from?: "batching";
}

type SearchParams = Record<string, string | string[] | undefined>;
const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function parseOptimizerParams(params: SearchParams): OptimizerUrlState {
  const id = (v: string | undefined) => (v !== undefined && ID.test(v) ? v : null);
  const text = (v: string | undefined) => (v ?? "").trim().slice(0, 12);
  return {
    deployment: id(first(params.deployment)),
    profile: id(first(params.profile)),
    batch: text(first(params.B)),
    timeout: text(first(params.timeout)),
    ...(first(params.from) === "batching" ? { from: "batching" as const } : {}),
  };
}

export function serializeOptimizerState(state: OptimizerUrlState): string {
  const q = new URLSearchParams();
  if (state.deployment) q.set("deployment", state.deployment);
  if (state.profile) q.set("profile", state.profile);
  if (state.batch) q.set("B", state.batch);
  if (state.timeout) q.set("timeout", state.timeout);
  if (state.from) q.set("from", state.from);
  return q.toString();
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** B: an integer 1…65536 (the serving plan's bound). Empty: the caller's default. */
export function parseBatch(text: string, fallback: number | null): Parsed<number> {
  const t = text.trim();
  if (t === "") return fallback === null ? { ok: false, error: "Enter a batch size B" } : { ok: true, value: fallback };
  if (!/^\d+$/.test(t)) return { ok: false, error: "B must be a whole number of samples" };
  const value = Number(t);
  if (value < 1 || value > 65536) return { ok: false, error: "B must be between 1 and 65,536" };
  return { ok: true, value };
}

/** The batch timeout in ms, 0…60000. Empty: the running plan's timeout (the default). */
export function parseTimeout(text: string, fallback: number): Parsed<number> {
  const t = text.trim();
  if (t === "") return { ok: true, value: fallback };
  if (!/^\d+(\.\d+)?$/.test(t)) return { ok: false, error: "The timeout must be a number of milliseconds ≥ 0" };
  const value = Number(t);
  if (value > 60_000) return { ok: false, error: "The timeout must be at most 60,000 ms" };
  return { ok: true, value };
}

export interface ProfileChoice {
  id: string;
  version: number;
  status: string;
  perturbed: boolean;
  perturbedRatePerS: number | null;
  cores: number;
  threads: number[];
  batches: number[];
  cellsDone: number;
  cellsTotal: number;
  compatible: boolean;
  differences: Array<{ field: string; profile: string; deployment: string }>;
}

export interface ProfileOption {
  id: string;
  label: string;
  disabled: boolean;
  /** What differs (disabled) or why to be careful (perturbed); null when there is nothing to say. */
  note: string | null;
}

export function describeDifferences(differences: ProfileChoice["differences"]): string {
  return differences.map((d) => `${d.field}: profile ${d.profile}, deployment ${d.deployment}`).join("; ");
}

export function perturbedWarning(p: Pick<ProfileChoice, "perturbed" | "perturbedRatePerS">): string | null {
  if (!p.perturbed) return null;
  const rate =
    p.perturbedRatePerS !== null
      ? ` (${formatSig(p.perturbedRatePerS, 3)} requests/s arrived on the host while it ran)`
      : "";
  return `measured while the deployment served traffic${rate}: its latencies may be high, and so may the plan's`;
}

/** One option per profile: incompatible ones stay listed, disabled, saying what differs. */
export function profileOptions(profiles: readonly ProfileChoice[]): ProfileOption[] {
  return profiles.map((p) => {
    const grid = `t ∈ {${p.threads.join(", ")}} × b ∈ {${p.batches.join(", ")}}`;
    const base = `v${p.version} · ${grid} · ${p.cellsDone}/${p.cellsTotal} cells`;
    if (!p.compatible)
      return { id: p.id, label: `${base} — incompatible`, disabled: true, note: describeDifferences(p.differences) };
    return {
      id: p.id,
      label: `${base}${p.perturbed ? " — perturbed" : ""}`,
      disabled: false,
      note: perturbedWarning(p),
    };
  });
}

/** The profile to show: the URL's when it is usable, else the newest compatible one (unperturbed first). */
export function defaultProfile(profiles: readonly ProfileChoice[], wanted: string | null): string | null {
  const usable = profiles.filter((p) => p.compatible);
  if (wanted && profiles.some((p) => p.id === wanted)) return wanted;
  return (usable.find((p) => !p.perturbed) ?? usable[0])?.id ?? null;
}

export interface Group {
  count: number;
  threads: number;
  batch: number;
}

/** "2 × ⟨4 threads, b = 4⟩ + 1 × ⟨2 threads, b = 1⟩" */
export function describeGroups(groups: readonly Group[]): string {
  return groups
    .map((g) => `${g.count} × ⟨${g.threads} thread${g.threads === 1 ? "" : "s"}, b = ${g.batch}⟩`)
    .join(" + ");
}

/** The paper's ⟨i, t, b⟩ notation: "⟨2, 4, 4⟩ + ⟨1, 2, 1⟩". */
export function tupleText(groups: readonly Group[]): string {
  return groups.map((g) => `⟨${g.count}, ${g.threads}, ${g.batch}⟩`).join(" + ");
}

export interface TableRow {
  batch: number;
  latencyMs: number | null;
  allThreadsMs: number | null;
  oneThreadMs: number | null;
}

/** Chart rows: a series without a value at B (no plan, or a baseline cell the profile lacks) leaves its key out. */
export function chartRows(rows: readonly TableRow[]): Array<Record<string, number>> {
  return rows.map((r) => {
    const row: Record<string, number> = { batch: r.batch };
    if (r.latencyMs !== null) row.packrat = r.latencyMs;
    if (r.allThreadsMs !== null) row.allThreads = r.allThreadsMs;
    if (r.oneThreadMs !== null) row.oneThread = r.oneThreadMs;
    return row;
  });
}

export function chartCsv(rows: readonly TableRow[]): CsvTable {
  return {
    columns: ["batch", "packrat_latency_ms", "all_threads_latency_ms", "one_thread_latency_ms"],
    rows: rows.map((r) => [r.batch, r.latencyMs, r.allThreadsMs, r.oneThreadMs]),
  };
}

/** Ticks for a 1…max batch axis: about six round steps, always including 1 and max. */
export function batchTicks(max: number): number[] {
  if (max <= 8) return Array.from({ length: max }, (_, i) => i + 1);
  const raw = max / 6;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const ticks = [1];
  for (let t = step; t < max; t += step) if (t > 1) ticks.push(t);
  if (ticks[ticks.length - 1] !== max) ticks.push(max);
  return ticks;
}

export interface PlannedInstance {
  count: number;
  threads: number;
  batch: number;
  cpus?: string[];
}
export interface CoreMapEntry {
  id: string;
  label: string;
  cpus: number[];
  instances: Array<{ id: number; threads: number; cpus: number[]; affinityOk: boolean }>;
}

/**
 * A plan as core-map entries, one per ⟨t, b⟩ group so each group has its colour. The first entry also holds the
 * core budget, so budget CPUs no instance uses show as idle budget. Instance numbers run across the whole plan.
 */
export function plannedCoreMap(instances: readonly PlannedInstance[], budget: readonly number[]): CoreMapEntry[] {
  let next = 0;
  return instances.map((g, index) => ({
    id: `group-${index}`,
    label: `⟨${g.threads}t, b${g.batch}⟩`,
    cpus: index === 0 ? [...budget] : [],
    instances: (g.cpus ?? []).map((list) => ({
      id: next++,
      threads: g.threads,
      cpus: parseCpuList(list),
      affinityOk: true,
    })),
  }));
}

export interface Slo {
  deadlineMs: number | null;
  quantile: number | null;
}

export interface ValidatorView {
  validation: BatchingValidation;
  /** How T(b) was obtained, in one line. */
  note: string;
  /** T(B) from the fitted model, beside the optimizer's own L*(B). */
  fittedAtBatchMs: number;
}

/**
 * The batching validator (planning core II, digest §6.3 item 24) on the candidate (B, timeout) against the model's
 * SLO at the deployment's current arrival rate. The dispatcher forms batches of b ≤ B and the plan runs each in
 * Packrat's predicted makespan, so T(b) is fitted to the optimum's latency for b = 1…B (two batch sizes at least).
 */
export function validateCandidate(input: {
  rows: readonly TableRow[];
  batchSize: number;
  timeoutMs: number;
  slo: Slo;
  arrivalRatePerS: number | null;
}): Parsed<ValidatorView> {
  const { slo } = input;
  if (slo.deadlineMs === null || slo.deadlineMs <= 0)
    return { ok: false, error: "The model has no latency SLO: set one on its model page to validate the candidate." };
  const upTo = Math.max(2, input.batchSize);
  const points = input.rows
    .filter((r) => r.batch <= upTo && r.latencyMs !== null && r.latencyMs > 0)
    .map((r) => ({ batch: r.batch, latencyMs: r.latencyMs! }));
  if (new Set(points.map((p) => p.batch)).size < 2)
    return {
      ok: false,
      error: "The profile gives a plan for fewer than two batch sizes ≤ B: no service-time model to validate with.",
    };
  try {
    const fit = fitServiceTime(points);
    const model: ServiceTimeModel = fit.model;
    const quantile = slo.quantile !== null && slo.quantile > 0 && slo.quantile < 1 ? slo.quantile : 0.99;
    const lambda = input.arrivalRatePerS ?? 0;
    const validation = validateBatchingCandidate({
      model,
      arrivalRatePerS: lambda,
      windowMs: input.timeoutMs,
      maxBatch: input.batchSize,
      sloMs: slo.deadlineMs,
      quantile,
    });
    const form =
      model.kind === "affine"
        ? `T(b) = ${formatSig(model.fixedMs, 4)} + ${formatSig(model.perSampleMs, 4)}·b ms`
        : `T(b) in two lines broken at b = ${model.breakBatch}`;
    const note = `${form}, fitted to Packrat's predicted latency for b = 1…${upTo} (${points.length} points, ${fit.chosen}); λ = ${formatSig(lambda, 4)}/s (the deployment's current rate); SLO ${formatSig(slo.deadlineMs, 4)} ms at p${formatSig(quantile * 100, 3)}.`;
    return { ok: true, value: { validation, note, fittedAtBatchMs: serviceTimeMs(model, input.batchSize) } };
  } catch (error) {
    return { ok: false, error: `The validator could not run: ${(error as Error).message}` };
  }
}

/** Names of the validator's checks as the page shows them. */
export const checkLabels: Record<string, string> = {
  stability: "Stability (λ < μ_eff)",
  "mean-screen": "Mean screen (Eq. 11)",
  "tail-envelope": "Tail envelope (Eq. 12)",
  "window-fraction": "Window share of the SLO",
  "memory-cap": "Memory cap",
  "zero-window": "Zero-window conditions",
};
