// Plan export: a Packrat serving plan (⟨i, t, b⟩ groups, a dispatcher batch B, a batching delay, per-instance CPU
// lists) written as another serving system's configuration: a Triton config.pbtxt (onnxruntime backend on CPU), an
// OpenVINO Model Server config.json and a KServe InferenceService manifest (Triton runtime). None of them can say
// everything a Packrat plan says: each runs i identical instances of t threads on batches of up to b, with no
// per-instance CPU lists. A plan they cannot express is exported as the nearest uniform plan they can, and every
// thing that was lost is named in `differences`; `strict` refuses instead. Pure: no I/O.

export type ExportFormat = "triton" | "ovms" | "kserve";
export const exportFormats: readonly ExportFormat[] = ["triton", "ovms", "kserve"];

export interface ExportPlanItem {
  count: number;
  threads: number;
  batch: number;
  cpus?: string[];
}
export interface ExportablePlan {
  instances: readonly ExportPlanItem[];
  /** Dispatcher batch B; defaults to Σ count·batch. */
  batchSize?: number;
  batchTimeoutMs: number;
}

export interface ExportInput {
  /** The model's name in the target system (sanitized to a name all three accept). */
  modelName: string;
  plan: ExportablePlan;
  /** Where the target finds the model repository (KServe storageUri, OVMS base_path); a placeholder by default. */
  storageUri?: string;
}

/** What a difference is about, so a caller can accept some (e.g. placement) and still refuse the rest. */
export type DifferenceKind = "shape" | "batch-shares" | "dispatch-batch" | "pinning" | "batching-delay";
export interface ExportDifference {
  kind: DifferenceKind;
  message: string;
}

/** The uniform plan every target can express: `count` instances of `threads` threads on batches of up to `batch`. */
export interface UniformPlan {
  count: number;
  threads: number;
  batch: number;
  batchTimeoutMs: number;
}

export interface PlanExport {
  format: ExportFormat;
  fileName: string;
  mediaType: string;
  content: string;
  /** The plan the file describes (the nearest uniform one). */
  exported: UniformPlan;
  /** What the file does not say that the plan did; empty when it is exact. */
  differences: ExportDifference[];
}

export class PlanNotExpressibleError extends Error {
  constructor(
    readonly format: ExportFormat,
    readonly differences: readonly ExportDifference[],
  ) {
    super(`${formatLabels[format]} cannot express this plan exactly: ${differences.map((d) => d.message).join("; ")}`);
    this.name = "PlanNotExpressibleError";
  }
}

export const formatLabels: Record<ExportFormat, string> = {
  triton: "Triton",
  ovms: "OpenVINO Model Server",
  kserve: "KServe",
};

const shapeText = (items: readonly ExportPlanItem[]) =>
  items.map((g) => `${g.count}×⟨t=${g.threads}, b=${g.batch}⟩`).join(" + ");
const totalInstances = (items: readonly ExportPlanItem[]) => items.reduce((s, g) => s + g.count, 0);
const totalThreads = (items: readonly ExportPlanItem[]) => items.reduce((s, g) => s + g.count * g.threads, 0);

/**
 * The nearest uniform plan: the same number of instances, the threads shared out evenly (rounded down, so the core
 * budget is never exceeded) and the batch per instance ⌈B / i⌉ (so i batches still cover B). Exact when the plan is
 * one group whose B is count·batch. The differences that apply to every target: shape, batch shares, dispatch batch.
 */
export function nearestUniformPlan(plan: ExportablePlan): { uniform: UniformPlan; differences: ExportDifference[] } {
  const items = plan.instances;
  if (items.length === 0) throw new RangeError("a plan has at least one instance group");
  const count = totalInstances(items);
  const cores = totalThreads(items);
  const B = plan.batchSize ?? items.reduce((s, g) => s + g.count * g.batch, 0);
  const threads = Math.max(1, Math.floor(cores / count));
  const batch = Math.ceil(B / count);
  const differences: ExportDifference[] = [];
  const threadCounts = [...new Set(items.map((g) => g.threads))].sort((a, b) => a - b);
  const batches = [...new Set(items.map((g) => g.batch))].sort((a, b) => a - b);
  if (threadCounts.length > 1) {
    const idle = cores - count * threads;
    differences.push({
      kind: "shape",
      message:
        `mixed instance shapes ${shapeText(items)}: every instance gets ${threads} thread${threads === 1 ? "" : "s"}` +
        (idle > 0 ? ` (${idle} of the plan's ${cores} cores left idle)` : ""),
    });
  }
  if (batches.length > 1) {
    differences.push({
      kind: "batch-shares",
      message: `uneven batch shares (${batches.join(", ")} samples per instance): every instance takes batches of up to ${batch}`,
    });
  }
  const shares = items.reduce((s, g) => s + g.count * g.batch, 0);
  if (B !== shares) {
    differences.push({
      kind: "dispatch-batch",
      message: `the dispatcher batch B = ${B} is not the instances' shares (Σ count·batch = ${shares}): each instance takes batches of up to ${batch}`,
    });
  }
  return { uniform: { count, threads, batch, batchTimeoutMs: plan.batchTimeoutMs }, differences };
}

function pinningDifference(plan: ExportablePlan, format: ExportFormat): ExportDifference[] {
  const lists = plan.instances.flatMap((g) => g.cpus ?? []);
  if (lists.length === 0) return [];
  const how: Record<ExportFormat, string> = {
    triton:
      "Triton's config has no CPU lists: run the server in a cpuset (or under taskset) of these CPUs to keep the budget",
    ovms: "OpenVINO pins its streams itself (ENABLE_CPU_PINNING) but not to named CPUs: run the server in a cpuset of these CPUs",
    kserve:
      "a pod cannot pin instances: whole-CPU requests equal to limits give the pod exclusive cores under the kubelet's static CPU manager",
  };
  return [{ kind: "pinning", message: `per-instance CPU lists (${lists.join("; ")}) are lost: ${how[format]}` }];
}

/** A name Triton (a directory), OVMS and Kubernetes (a DNS-1035 label) all accept: lower-case, digits and dashes. */
export function exportModelName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/-+$/, "")
    .slice(0, 63)
    .replace(/-+$/, "");
  return cleaned || "model";
}

const DEFAULT_STORAGE = "s3://models";

/**
 * Triton: `count` CPU instances; the onnxruntime backend's intra_op_thread_count = t (inter-op 1: one graph at a
 * time per instance, as Packrat runs it); dynamic batching to preferred size b within the batching delay. Triton
 * forms each instance's batch from the queue; there is no dispatcher batch split at once.
 */
export function tritonConfig(name: string, u: UniformPlan): string {
  const delayUs = Math.round(u.batchTimeoutMs * 1000);
  return [
    `name: "${name}"`,
    `backend: "onnxruntime"`,
    `max_batch_size: ${u.batch}`,
    `instance_group [`,
    `  {`,
    `    count: ${u.count}`,
    `    kind: KIND_CPU`,
    `  }`,
    `]`,
    `dynamic_batching {`,
    `  preferred_batch_size: [ ${u.batch} ]`,
    `  max_queue_delay_microseconds: ${delayUs}`,
    `}`,
    `parameters {`,
    `  key: "intra_op_thread_count"`,
    `  value: { string_value: "${u.threads}" }`,
    `}`,
    `parameters {`,
    `  key: "inter_op_thread_count"`,
    `  value: { string_value: "1" }`,
    `}`,
    "",
  ].join("\n");
}

/**
 * OpenVINO Model Server: one stream per instance (NUM_STREAMS = i), i·t inference threads (t per stream), i
 * inference requests in flight, the model's batch dimension fixed at b. OVMS has no batching delay.
 */
export function ovmsConfig(name: string, u: UniformPlan, basePath: string): string {
  const config = {
    model_config_list: [
      {
        config: {
          name,
          base_path: basePath,
          target_device: "CPU",
          batch_size: String(u.batch),
          nireq: u.count,
          plugin_config: {
            NUM_STREAMS: String(u.count),
            INFERENCE_NUM_THREADS: String(u.count * u.threads),
            ENABLE_CPU_PINNING: true,
          },
        },
      },
    ],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * KServe: an InferenceService on the Triton runtime (the model repository at storageUri holds the config.pbtxt
 * above) with whole CPUs, requests equal to limits (i·t), so the pod is Guaranteed and can get exclusive cores.
 */
export function kserveManifest(name: string, u: UniformPlan, storageUri: string): string {
  const cpus = String(u.count * u.threads);
  const q = (s: string) => JSON.stringify(s);
  return [
    `apiVersion: serving.kserve.io/v1beta1`,
    `kind: InferenceService`,
    `metadata:`,
    `  name: ${name}`,
    `  annotations:`,
    `    packrat.dev/plan: ${q(`${u.count}x<t=${u.threads},b=${u.batch}>`)}`,
    `spec:`,
    `  predictor:`,
    `    model:`,
    `      modelFormat:`,
    `        name: onnx`,
    `      runtime: kserve-tritonserver`,
    `      protocolVersion: v2`,
    `      storageUri: ${q(storageUri)}`,
    `      resources:`,
    `        requests:`,
    `          cpu: ${q(cpus)}`,
    `        limits:`,
    `          cpu: ${q(cpus)}`,
    "",
  ].join("\n");
}

export interface ExportOptions {
  /** Refuse (PlanNotExpressibleError) when anything would be lost, except the kinds listed in `allow`. */
  strict?: boolean;
  allow?: readonly DifferenceKind[];
}

export function exportPlan(input: ExportInput, format: ExportFormat, options: ExportOptions = {}): PlanExport {
  const name = exportModelName(input.modelName);
  const { uniform, differences } = nearestUniformPlan(input.plan);
  const all = [...differences, ...pinningDifference(input.plan, format)];
  if (format === "ovms" && uniform.batchTimeoutMs > 0) {
    all.push({
      kind: "batching-delay",
      message: `OVMS has no batching delay: the ${uniform.batchTimeoutMs} ms batch timeout is dropped (each request runs as it comes)`,
    });
  }
  if (options.strict) {
    const refused = all.filter((d) => !(options.allow ?? []).includes(d.kind));
    if (refused.length > 0) throw new PlanNotExpressibleError(format, refused);
  }
  const storage = input.storageUri ?? `${DEFAULT_STORAGE}/${name}`;
  switch (format) {
    case "triton":
      return {
        format,
        fileName: "config.pbtxt",
        mediaType: "text/plain",
        content: tritonConfig(name, uniform),
        exported: uniform,
        differences: all,
      };
    case "ovms":
      return {
        format,
        fileName: "config.json",
        mediaType: "application/json",
        content: ovmsConfig(name, uniform, storage),
        exported: uniform,
        differences: all,
      };
    case "kserve":
      return {
        format,
        fileName: `${name}-inferenceservice.yaml`,
        mediaType: "application/yaml",
        content: kserveManifest(name, uniform, storage),
        exported: uniform,
        differences: all,
      };
  }
}
