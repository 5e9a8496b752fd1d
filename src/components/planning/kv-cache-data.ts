/**
 * KV-cache budget planner (issue 18 item 3; F-55…F-58, F-61, Figure 8, TV-062…TV-069): bytes per token and per
 * sequence, sequences that fit, the memory bar, concurrency against context (Figure 8), the decode floor and
 * aggregate tokens/s against batch, and the speculative decoding calculator. Pure: the page only renders this.
 *
 * Memory is entered with an explicit unit (GB = 1e9 B or GiB = 2^30 B: an "80 GB" H100 is 80 GiB = 85.9 GB);
 * weights and reserve are decimal GB, as the chapter counts tensor footprints.
 */
import { decodeFloorMs, decodeStep, type DecodeStep } from "@/core/llm/decode";
import {
  checkKvFit,
  contextThatFits,
  kvBudgetBytes,
  sequencesThatFit,
  type DoesNotFit,
  type KvMemoryInput,
} from "@/core/llm/kv-budget";
import { gqaReduction, kvBytesPerToken } from "@/core/llm/kv-cache";
import {
  GPT2_SMALL_DRAFT_FP16_BYTES,
  GPT2_XL,
  H100_SXM5,
  LLAMA3_8B,
  LLAMA_70B_CLASS,
  type TransformerSpec,
} from "@/core/llm/presets";
import { speculativeDecoding, type SpeculativeEstimate } from "@/core/llm/speculative";
import { niceCeil } from "@/lib/planning/axis";
import type { CsvTable } from "@/lib/planning/csv";
import { BYTES_PER_GB, BYTES_PER_GIB } from "@/lib/planning/format";
import {
  need,
  validateForm,
  type FormSpec,
  type FormValidation,
  type FormValues,
  type RawState,
} from "@/lib/planning/fields";
import { runModel, type ModelRun } from "@/lib/planning/run-model";

export const DTYPE_BYTES: Record<string, number> = { fp32: 4, fp16: 2, fp8: 1 };

export const kvCacheSpec = {
  layers: { kind: "number", label: "Layers", unit: "", default: "32", min: 1, max: 1000, integer: true },
  kvHeads: { kind: "number", label: "KV heads", unit: "", default: "8", min: 1, max: 1024, integer: true },
  queryHeads: { kind: "number", label: "Query heads", unit: "", default: "32", min: 1, max: 1024, integer: true },
  headDim: { kind: "number", label: "Head dim", unit: "", default: "128", min: 1, max: 65536, integer: true },
  dtype: {
    kind: "choice",
    label: "Cache dtype",
    default: "fp16",
    options: [
      { value: "fp32", label: "FP32 (4 B)" },
      { value: "fp16", label: "FP16 / BF16 (2 B)" },
      { value: "fp8", label: "FP8 / INT8 (1 B)" },
    ],
  },
  context: {
    kind: "number",
    label: "Context",
    unit: "tokens",
    default: "8192",
    min: 1,
    max: 10_000_000,
    integer: true,
  },
  concurrency: {
    kind: "number",
    label: "Concurrent sequences",
    unit: "seq",
    default: "32",
    min: 1,
    max: 1_000_000,
    integer: true,
  },
  beam: { kind: "number", label: "Beam width", unit: "", default: "1", min: 1, max: 64, integer: true },
  memory: {
    kind: "number",
    label: "Accelerator memory",
    unit: "",
    default: "80",
    min: 0,
    minInclusive: false,
    max: 1e6,
  },
  memoryUnit: {
    kind: "choice",
    label: "Memory unit",
    default: "GiB",
    options: [
      { value: "GiB", label: "GiB (2³⁰ B)" },
      { value: "GB", label: "GB (10⁹ B)" },
    ],
  },
  weights: { kind: "number", label: "Weights", unit: "GB", default: "16.1", min: 0, max: 1e6 },
  reserve: {
    kind: "number",
    label: "Runtime reserve",
    unit: "GB",
    default: "0",
    min: 0,
    max: 1e6,
    help: "Workspace, activations, graphs: held back from the cache.",
  },
  bandwidth: {
    kind: "number",
    label: "Memory bandwidth",
    unit: "TB/s",
    default: "3.35",
    min: 0,
    minInclusive: false,
    max: 1e4,
  },
  draft: { kind: "number", label: "Draft model weights", unit: "GB", default: "2.5", min: 0, max: 1e6 },
  alpha: { kind: "number", label: "Acceptance α", unit: "", default: "0.7", min: 0, max: 1 },
  gamma: { kind: "number", label: "Draft tokens γ", unit: "tokens", default: "4", min: 0, max: 64, integer: true },
} as const satisfies FormSpec;

export type KvCacheSpec = typeof kvCacheSpec;
export type KvCacheState = RawState<KvCacheSpec>;
export type KvCacheField = keyof KvCacheSpec & string;
const labelOf = (k: KvCacheField) => kvCacheSpec[k].label;
type Values = Partial<FormValues<KvCacheSpec>>;

export interface KvPreset {
  id: string;
  label: string;
  source: string;
  state: KvCacheState;
}

function modelState(
  m: TransformerSpec,
  weightsGB: number,
  rest: Pick<KvCacheState, "context" | "concurrency" | "draft">,
): KvCacheState {
  return {
    layers: String(m.layers),
    kvHeads: String(m.kvHeads),
    queryHeads: String(m.queryHeads),
    headDim: String(m.headDim),
    dtype: "fp16",
    beam: "1",
    memory: String(H100_SXM5.memoryBytes / BYTES_PER_GIB),
    memoryUnit: "GiB",
    weights: String(weightsGB),
    reserve: "0",
    bandwidth: String(H100_SXM5.memoryBandwidthBytesPerS / 1e12),
    alpha: "0.7",
    gamma: "4",
    ...rest,
  };
}

export const KV_PRESETS: readonly KvPreset[] = [
  {
    id: "gpt2-xl",
    label: "GPT-2 XL",
    source:
      "§13.9.2: 48 layers × 25 heads × 64, no GQA, 3 GB FP16 weights on an H100 (80 GiB, 3.35 TB/s); draft GPT-2 Small 248 MB, γ = 4, α = 0.7 (TV-063, TV-066).",
    state: modelState(GPT2_XL, GPT2_XL.weightBytes.fp16! / BYTES_PER_GB, {
      context: "1024",
      concurrency: "32",
      draft: String(GPT2_SMALL_DRAFT_FP16_BYTES / BYTES_PER_GB),
    }),
  },
  {
    id: "llama3-8b",
    label: "Llama 3 8B",
    source:
      "§13.9.5: 32 layers, 8 KV heads × 128 (32 query heads), 16.1 GB FP16 weights, 8,192-token context on an H100 (TV-068). Draft: a 1B-class model, 2.5 GB (illustrative, not from the chapter).",
    state: modelState(LLAMA3_8B, LLAMA3_8B.weightBytes.fp16! / BYTES_PER_GB, {
      context: "8192",
      concurrency: "32",
      draft: "2.5",
    }),
  },
  {
    id: "70b",
    label: "70B-class GQA",
    source:
      "Figure 8: 80 layers, 8 KV heads × 128 (reconstructed), 35.3 GB INT4 weights, FP16 cache, 50.6 GB for KV (TV-069). Draft: Llama 3 8B in 4-bit, 4 GB (illustrative).",
    state: modelState(LLAMA_70B_CLASS, LLAMA_70B_CLASS.weightBytes.int4! / BYTES_PER_GB, {
      context: "4096",
      concurrency: "32",
      draft: String(LLAMA3_8B.weightBytes.int4! / BYTES_PER_GB),
    }),
  },
];

export interface SizingView {
  bytesPerToken: number;
  gqaFactor: number | null;
  bytesPerSequence: number;
  deviceBytes: number;
  budgetBytes: number;
  /** Sequences of the chosen context that fit, or why none does. */
  sequences: { fits: true; sequences: number; maxResidentTokens: number } | DoesNotFit;
  /** Longest context at the chosen concurrency. */
  contextAtConcurrency: { fits: true; contextTokens: number } | DoesNotFit;
  /** The chosen load (concurrency × context × beam). */
  load: { fits: true; cacheBytes: number; headroomBytes: number } | (DoesNotFit & { cacheBytes: number });
}

export interface MemorySegment {
  key: "weights" | "reserve" | "kv" | "free" | "over";
  label: string;
  bytes: number;
}

export interface Figure8Line {
  batch: number;
  /** Longest context that fits at this batch; null when not even one token per sequence does. */
  crossingTokens: number | null;
}

export interface Figure8View {
  lines: Figure8Line[];
  /** Rows of { context, b1, b8, … } in GB. */
  rows: Record<string, number>[];
  budgetGB: number;
  xMaxTokens: number;
  yMaxGB: number;
}

export interface DecodeRow extends DecodeStep {
  fits: boolean;
}

export interface DecodeView {
  floorMs: number;
  rows: DecodeRow[];
}

export interface SpeculativeView extends SpeculativeEstimate {
  draftStepMs: number;
  targetVerifyMs: number;
  /** Rows of { alpha, g1, g2, g4, g8 (, gN) }: speedup against α. */
  curve: Record<string, number>[];
  gammas: number[];
}

export interface KvCacheView {
  validation: FormValidation<KvCacheSpec>;
  errors: Partial<Record<KvCacheField, string>>;
  sizing: ModelRun<SizingView, KvCacheField> | null;
  memoryBar: MemorySegment[];
  figure8: Figure8View | null;
  decode: ModelRun<DecodeView, KvCacheField> | null;
  speculative: ModelRun<SpeculativeView, KvCacheField> | null;
  figure8Csv: CsvTable;
  memoryCsv: CsvTable;
  decodeCsv: CsvTable;
  speculativeCsv: CsvTable;
}

export const FIGURE8_BATCHES = [1, 8, 16, 32, 64] as const;
export const DECODE_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256] as const;
export const SPECULATIVE_GAMMAS = [1, 2, 4, 8] as const;

const PARAMS: Partial<Record<string, KvCacheField>> = {
  layers: "layers",
  kvHeads: "kvHeads",
  queryHeads: "queryHeads",
  headDim: "headDim",
  deviceBytes: "memory",
  weightBytes: "weights",
  workspaceBytes: "reserve",
  contextTokens: "context",
  concurrency: "concurrency",
  sequences: "concurrency",
  beamWidth: "beam",
  bandwidthBytesPerS: "bandwidth",
  acceptance: "alpha",
  draftTokens: "gamma",
  draftStepMs: "draft",
};

export function deviceBytesOf(memory: number, unit: string): number {
  return memory * (unit === "GB" ? BYTES_PER_GB : BYTES_PER_GIB);
}

function memoryInput(
  v: Pick<FormValues<KvCacheSpec>, "memory" | "memoryUnit" | "weights" | "reserve" | "beam">,
  bytesPerToken: number,
): KvMemoryInput {
  return {
    deviceBytes: deviceBytesOf(v.memory, v.memoryUnit),
    weightBytes: v.weights * BYTES_PER_GB,
    workspaceBytes: v.reserve * BYTES_PER_GB,
    bytesPerToken,
    beamWidth: v.beam,
  };
}

function sizing(values: Values): ModelRun<SizingView, KvCacheField> | null {
  const v = need(values, [
    "layers",
    "kvHeads",
    "queryHeads",
    "headDim",
    "dtype",
    "context",
    "concurrency",
    "beam",
    "memory",
    "memoryUnit",
    "weights",
    "reserve",
  ]);
  if (!v) return null;
  return runModel(
    () => {
      const bytesPerToken = kvBytesPerToken({
        layers: v.layers,
        kvHeads: v.kvHeads,
        headDim: v.headDim,
        bytesPerElement: DTYPE_BYTES[v.dtype]!,
      });
      const gqaFactor = gqaReduction(v.queryHeads, v.kvHeads);
      const input = memoryInput(v, bytesPerToken);
      const seq = sequencesThatFit(input, v.context);
      const ctx = contextThatFits(input, v.concurrency);
      const load = checkKvFit(input, v.context, v.concurrency);
      const cacheBytes = bytesPerToken * v.context * v.concurrency * v.beam;
      return {
        bytesPerToken,
        gqaFactor,
        bytesPerSequence: bytesPerToken * v.context * v.beam,
        deviceBytes: input.deviceBytes,
        budgetBytes: kvBudgetBytes(input),
        sequences: seq.fits ? { fits: true, sequences: seq.sequences, maxResidentTokens: seq.maxResidentTokens } : seq,
        contextAtConcurrency: ctx.fits ? { fits: true, contextTokens: ctx.contextTokens } : ctx,
        load: load.fits ? { fits: true, cacheBytes, headroomBytes: load.headroomBytes } : { ...load, cacheBytes },
      };
    },
    PARAMS,
    labelOf,
  );
}

/**
 * Weights | reserve | the chosen load's cache | free. When the load does not fit, the cache is split at the device's
 * edge: the part that fits, then "does not fit" for the shortfall, so the bar's length is what the load needs.
 */
export function memorySegments(s: SizingView, weightBytes: number, reserveBytes: number): MemorySegment[] {
  const cacheBytes = s.load.cacheBytes;
  const used = weightBytes + reserveBytes + cacheBytes;
  const segments: MemorySegment[] = [
    { key: "weights", label: "Weights", bytes: weightBytes },
    { key: "reserve", label: "Runtime reserve", bytes: reserveBytes },
  ];
  if (used <= s.deviceBytes) {
    segments.push({ key: "kv", label: "KV cache (chosen load)", bytes: cacheBytes });
    segments.push({ key: "free", label: "Free", bytes: s.deviceBytes - used });
  } else {
    const over = used - s.deviceBytes;
    segments.push({ key: "kv", label: "KV cache (chosen load)", bytes: Math.max(0, cacheBytes - over) });
    segments.push({ key: "over", label: "Does not fit", bytes: over });
  }
  return segments;
}

/** Figure 8's x range: a power-of-two multiple of 1,024 tokens that shows twice the chosen context (at least 8k). */
export function figure8XMax(context: number): number {
  let x = 8192;
  while (x < 2 * context && x < 2 ** 24) x *= 2;
  return x;
}

export function figure8(
  bytesPerToken: number,
  budgetBytes: number,
  context: number,
  concurrency: number,
  beam: number,
): Figure8View {
  const batches = [...new Set([...FIGURE8_BATCHES, concurrency])].sort((a, b) => a - b);
  const xMaxTokens = figure8XMax(context);
  const steps = 64;
  const rows = Array.from({ length: steps + 1 }, (_, i) => {
    const tokens = (xMaxTokens * i) / steps;
    const row: Record<string, number> = { context: tokens };
    for (const b of batches) row[`b${b}`] = (b * beam * tokens * bytesPerToken) / BYTES_PER_GB;
    return row;
  });
  const lines = batches.map((batch) => {
    const perTokenAcross = bytesPerToken * batch * beam;
    return { batch, crossingTokens: budgetBytes >= perTokenAcross ? Math.floor(budgetBytes / perTokenAcross) : null };
  });
  const budgetGB = budgetBytes / BYTES_PER_GB;
  return { lines, rows, budgetGB, xMaxTokens, yMaxGB: budgetGB > 0 ? niceCeil(2 * budgetGB) : 10 };
}

function decode(values: Values, s: SizingView, sequencesFit: number): ModelRun<DecodeView, KvCacheField> | null {
  const v = need(values, ["weights", "bandwidth", "context", "beam"]);
  if (!v) return null;
  return runModel(
    () => {
      const weightBytes = v.weights * BYTES_PER_GB;
      const bandwidthBytesPerS = v.bandwidth * 1e12;
      const floorMs = weightBytes > 0 ? decodeFloorMs(weightBytes, bandwidthBytesPerS) : 0;
      const rows = DECODE_BATCHES.map((batch) => ({
        ...decodeStep({
          weightBytes,
          kvBytesPerToken: s.bytesPerToken * v.beam,
          contextTokens: v.context,
          batch,
          bandwidthBytesPerS,
        }),
        fits: batch <= sequencesFit,
      }));
      return { floorMs, rows };
    },
    PARAMS,
    labelOf,
  );
}

export function speculativeCurve(
  draftStepMs: number,
  targetVerifyMs: number,
  gammas: readonly number[],
): Record<string, number>[] {
  return Array.from({ length: 51 }, (_, i) => {
    const alpha = Math.min(1, i / 50);
    const row: Record<string, number> = { alpha };
    for (const g of gammas)
      row[`g${g}`] = speculativeDecoding({ acceptance: alpha, draftTokens: g, draftStepMs, targetVerifyMs }).speedup;
    return row;
  });
}

function speculative(values: Values): ModelRun<SpeculativeView, KvCacheField> | null {
  const v = need(values, ["weights", "draft", "bandwidth", "alpha", "gamma"]);
  if (!v) return null;
  return runModel(
    () => {
      if (!(v.weights > 0))
        throw new RangeError("Speculative decoding needs target weights > 0 GB (the verify pass streams them)");
      const bw = v.bandwidth * 1e12;
      const targetVerifyMs = decodeFloorMs(v.weights * BYTES_PER_GB, bw);
      const draftStepMs = v.draft > 0 ? decodeFloorMs(v.draft * BYTES_PER_GB, bw) : 0;
      const estimate = speculativeDecoding({ acceptance: v.alpha, draftTokens: v.gamma, draftStepMs, targetVerifyMs });
      const gammas = [...new Set([...SPECULATIVE_GAMMAS, v.gamma])].filter((g) => g > 0).sort((a, b) => a - b);
      return {
        ...estimate,
        draftStepMs,
        targetVerifyMs,
        gammas,
        curve: speculativeCurve(draftStepMs, targetVerifyMs, gammas),
      };
    },
    PARAMS,
    labelOf,
  );
}

export function computeKvCache(raw: KvCacheState): KvCacheView {
  const validation = validateForm(kvCacheSpec, raw);
  const values = validation.values;
  const errors: Partial<Record<KvCacheField, string>> = { ...validation.errors };

  const size = sizing(values);
  if (size && !size.ok && size.field) errors[size.field] = size.message;

  let memoryBar: MemorySegment[] = [];
  let fig: Figure8View | null = null;
  let dec: KvCacheView["decode"] = null;
  if (
    size?.ok &&
    values.weights !== undefined &&
    values.reserve !== undefined &&
    values.context !== undefined &&
    values.concurrency !== undefined &&
    values.beam !== undefined
  ) {
    const s = size.value;
    memoryBar = memorySegments(s, values.weights * BYTES_PER_GB, values.reserve * BYTES_PER_GB);
    fig = figure8(s.bytesPerToken, s.budgetBytes, values.context, values.concurrency, values.beam);
    dec = decode(values, s, s.sequences.fits ? s.sequences.sequences : 0);
    if (dec && !dec.ok && dec.field) errors[dec.field] = dec.message;
  }
  const spec = speculative(values);
  if (spec && !spec.ok && spec.field) errors[spec.field] = spec.message;

  return {
    validation,
    errors,
    sizing: size,
    memoryBar,
    figure8: fig,
    decode: dec,
    speculative: spec,
    figure8Csv: figure8Csv(fig),
    memoryCsv: {
      columns: ["segment", "bytes", "gb"],
      rows: memoryBar.map((m) => [m.label, m.bytes, m.bytes / BYTES_PER_GB]),
    },
    decodeCsv: decodeCsv(dec?.ok ? dec.value : null),
    speculativeCsv: speculativeCsv(spec?.ok ? spec.value : null),
  };
}

export function figure8Csv(f: Figure8View | null): CsvTable {
  if (!f) return { columns: ["context_tokens"], rows: [] };
  const batches = f.lines.map((l) => l.batch);
  return {
    columns: ["context_tokens", ...batches.map((b) => `kv_gb_batch_${b}`), "kv_budget_gb"],
    rows: f.rows.map((r) => [r.context!, ...batches.map((b) => r[`b${b}`]!), f.budgetGB]),
  };
}

export function decodeCsv(d: DecodeView | null): CsvTable {
  return {
    columns: ["batch", "bytes_per_step", "tpot_ms", "aggregate_tokens_per_s", "cache_share", "kv_fits"],
    rows: d ? d.rows.map((r) => [r.batch, r.bytesPerStep, r.stepMs, r.tokensPerS, r.cacheShare, r.fits]) : [],
  };
}

export function speculativeCsv(s: SpeculativeView | null): CsvTable {
  if (!s) return { columns: ["acceptance"], rows: [] };
  return {
    columns: ["acceptance", ...s.gammas.map((g) => `speedup_gamma_${g}`)],
    rows: s.curve.map((r) => [r.alpha!, ...s.gammas.map((g) => r[`g${g}`]!)]),
  };
}
