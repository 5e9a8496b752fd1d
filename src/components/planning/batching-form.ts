// The batching planner's form: its fields (units, defaults, bounds), the presets from the reference's tables, and
// the stored profiles the "profile" field may name. The computation over it is batching-data.ts.
import type { ProfilePoint } from "@/core/batching/service-time-fit";
import type { FormSpec, RawState } from "@/lib/planning/fields";

export const batchingSpec = {
  source: {
    kind: "choice",
    label: "Service-time source",
    default: "typed",
    options: [
      { value: "typed", label: "typed T(B) = F + s·B" },
      { value: "points", label: "fit to profiled points" },
      { value: "profile", label: "a model's profile" },
    ],
  },
  fixedMs: { kind: "number", label: "Fixed part F", unit: "ms", default: "3.49528", min: 0 },
  perSampleMs: { kind: "number", label: "Per-sample part s", unit: "ms", default: "0.032894737", min: 0 },
  points: {
    kind: "pairs",
    label: "Profiled points",
    unit: "ms",
    names: ["batch", "ms"],
    default: "1:3.53, 4:3.63, 8:3.76, 16:4.02, 32:4.55",
    minItems: 2,
    maxItems: 64,
    help: "batch:latency pairs, e.g. 1:3.53, 4:3.63",
  },
  profile: { kind: "choice", label: "Profile", default: "", options: [{ value: "", label: "none" }] },
  threads: { kind: "number", label: "Threads t", unit: "threads", default: "1", min: 1, max: 1024, integer: true },
  kneeWindow: { kind: "number", label: "Window for the knee chart", unit: "ms", default: "10", min: 0, max: 1e5 },
  rate: { kind: "number", label: "Arrival rate λ", unit: "req/s", default: "500", min: 0, max: 1e9 },
  slo: { kind: "number", label: "Latency SLO", unit: "ms", default: "50", min: 0, minInclusive: false, max: 1e6 },
  windows: {
    kind: "list",
    label: "Candidate windows",
    unit: "ms",
    default: "0, 2, 5, 10, 12, 15, 20, 50",
    min: 0,
    minItems: 1,
    maxItems: 24,
  },
  batches: {
    kind: "list",
    label: "Candidate max batches",
    unit: "",
    default: "1, 2, 4, 8, 16, 32, 64, 128",
    min: 1,
    integer: true,
    minItems: 1,
    maxItems: 24,
  },
  frontierBatch: {
    kind: "choice",
    label: "Batch size in the envelope",
    default: "full",
    options: [
      { value: "full", label: "full: T_w + T(B_max)" },
      { value: "seen", label: "request-seen p99 at λ" },
    ],
  },
  limit: {
    kind: "number",
    label: "Latency limit (p99 envelope)",
    unit: "ms",
    default: "",
    min: 0,
    minInclusive: false,
    optional: true,
  },
  cWindow: { kind: "number", label: "Window T_w", unit: "ms", default: "12", min: 0, max: 1e5 },
  cBatch: { kind: "number", label: "Max batch B_max", unit: "", default: "32", min: 1, max: 1e6, integer: true },
  memCap: {
    kind: "number",
    label: "Memory cap on batch",
    unit: "",
    default: "32",
    min: 1,
    max: 1e6,
    integer: true,
    optional: true,
  },
  fraction: {
    kind: "number",
    label: "Window share of the SLO",
    unit: "",
    default: "0.3",
    min: 0,
    minInclusive: false,
    max: 1,
    maxInclusive: false,
  },
} as const satisfies FormSpec;

export type BatchingSpec = typeof batchingSpec;
export type BatchingState = RawState<BatchingSpec>;
export type BatchingField = keyof BatchingSpec & string;

export interface BatchingPreset {
  id: string;
  label: string;
  source: string;
  state: BatchingState;
}

const TABLE10: BatchingState = {
  source: "typed",
  fixedMs: "3.49528",
  perSampleMs: "0.032894737",
  points: "1:3.53, 4:3.63, 8:3.76, 16:4.02, 32:4.55",
  profile: "",
  threads: "1",
  kneeWindow: "10",
  rate: "500",
  slo: "50",
  windows: "0, 2, 5, 10, 12, 15, 20, 50",
  batches: "1, 2, 4, 8, 16, 32, 64, 128",
  frontierBatch: "full",
  limit: "",
  cWindow: "12",
  cBatch: "32",
  memCap: "32",
  fraction: "0.3",
};

export const BATCHING_PRESETS: readonly BatchingPreset[] = [
  {
    id: "table10",
    label: "Table 10: ResNet-50, 500 QPS, 50 ms SLO",
    source:
      "Fixture R (digest §0.3): F = 3.49528 ms, s = 1/30,400 s; 500 QPS; 50 ms SLO; 30% of it for the window; candidate T_w = 12 ms, B_max = 32 (memory-limited).",
    state: TABLE10,
  },
  {
    id: "stated",
    label: "Chapter-stated T(B) = 3.50 + 0.033·B",
    source: "§13.5.4 as written (fixture A): T(B) = 3.50 ms + 0.033 ms · B; the Table 10 scenario.",
    state: { ...TABLE10, fixedMs: "3.5", perSampleMs: "0.033" },
  },
  {
    id: "table8-fit",
    label: "Fit to Table 8",
    source:
      "Table 8's displayed T(B): 3.53, 3.63, 3.76, 4.02, 4.55 ms at B = 1, 4, 8, 16, 32, fitted by least squares.",
    state: { ...TABLE10, source: "points" },
  },
];

/** A model's stored profile at one thread count, to plug in when profiles are served to the page. */
export interface ProfileCurveOption {
  /** Profile id (the value of the "profile" field). */
  id: string;
  label: string;
  /** Mean latency per batch size, per thread count t. */
  curves: { threads: number; points: ProfilePoint[] }[];
}

/** The spec with the given profiles as the "profile" field's options, so a stored profile id validates. */
export function profileAwareSpec(profiles: readonly ProfileCurveOption[]): BatchingSpec {
  if (profiles.length === 0) return batchingSpec;
  return {
    ...batchingSpec,
    profile: {
      ...batchingSpec.profile,
      options: [...batchingSpec.profile.options, ...profiles.map((p) => ({ value: p.id, label: p.label }))],
    },
  } as unknown as BatchingSpec;
}
