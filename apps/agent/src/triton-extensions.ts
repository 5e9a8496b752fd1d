// Triton's model_configuration and statistics extensions (GET /v2/models/{m}/config and /stats), which
// tritonclient and perf_analyzer read. Plain functions from what the agent serves to Triton's JSON shapes.
import { planBatchSize } from "@packrat/contracts/serving-plan";
import type { Duration, ModelStatistics } from "./model-statistics";
import type { ServedModel, TensorMetadata } from "./served-model";
import type { OipDatatype } from "./tensor-types";

/** Triton's DataType enum names (model_config.proto) for the OIP datatypes the agent serves. */
export const TRITON_DATA_TYPES: Record<OipDatatype, string> = {
  BOOL: "TYPE_BOOL",
  UINT8: "TYPE_UINT8",
  UINT16: "TYPE_UINT16",
  UINT32: "TYPE_UINT32",
  UINT64: "TYPE_UINT64",
  INT8: "TYPE_INT8",
  INT16: "TYPE_INT16",
  INT32: "TYPE_INT32",
  INT64: "TYPE_INT64",
  FP16: "TYPE_FP16",
  FP32: "TYPE_FP32",
  FP64: "TYPE_FP64",
};

/**
 * Triton's max_batch_size > 0 means "every input and output has the batch as its first dimension, left out of
 * dims". That holds when the model is batched along axis 0 everywhere; a model batched along another axis, or
 * served unbatched, is reported with max_batch_size 0 and full shapes (Triton's form for "no batch dimension").
 */
function batchedAlongFirstAxis(model: ServedModel): boolean {
  const layout = model.metadata.layout;
  if (!layout || layout.kind !== "batched") return layout === undefined;
  return [...layout.axes.values()].every((axis) => axis === 0);
}

export function tritonModelConfig(model: ServedModel) {
  const { metadata, options } = model;
  const plan = options.plan;
  const firstAxis = batchedAlongFirstAxis(model);
  const maxBatchSize = firstAxis ? planBatchSize(plan) : 0;
  const dims = (t: TensorMetadata) => (maxBatchSize > 0 ? t.shape.slice(1) : t.shape);
  return {
    name: metadata.name,
    platform: "onnxruntime_onnx",
    backend: "onnxruntime",
    version_policy: { latest: { num_versions: 1 } },
    max_batch_size: maxBatchSize,
    input: metadata.inputs.map((t) => ({
      name: t.name,
      data_type: TRITON_DATA_TYPES[t.datatype],
      format: "FORMAT_NONE",
      dims: dims(t),
      is_shape_tensor: false,
      allow_ragged_batch: false,
      optional: false,
    })),
    output: metadata.outputs.map((t) => ({
      name: t.name,
      data_type: TRITON_DATA_TYPES[t.datatype],
      dims: dims(t),
      label_filename: "",
      is_shape_tensor: false,
    })),
    // One group per plan item: its instances are alike (threads, sub-batch). Triton has no per-group thread count;
    // the group's name and the parameters below carry it.
    instance_group: plan.instances.map((item, i) => ({
      name: `${metadata.name}_${i}`,
      kind: "KIND_CPU",
      count: item.count,
      gpus: [],
      secondary_devices: [],
      profile: [],
      passive: false,
      host_policy: "",
    })),
    ...(maxBatchSize > 0
      ? {
          dynamic_batching: {
            preferred_batch_size: [maxBatchSize],
            max_queue_delay_microseconds: Math.round(plan.batchTimeoutMs * 1000),
            preserve_ordering: false,
            priority_levels: 0,
            default_priority_level: 0,
            priority_queue_policy: {},
          },
        }
      : {}),
    parameters: Object.fromEntries(
      plan.instances.flatMap((item, i) => [
        [`packrat_group_${i}_threads`, { string_value: String(item.threads) }],
        [`packrat_group_${i}_batch`, { string_value: String(item.batch) }],
      ]),
    ),
  };
}

const copy = (d: Duration): Duration => ({ count: d.count, ns: d.ns });
const none = (): Duration => ({ count: 0, ns: 0 });

/** Triton's $model_stat for each version of `model` (all recorded, or the one named). */
export function tritonModelStats(name: string, statistics: ModelStatistics, versions: readonly string[]) {
  return versions.map((version) => {
    const s = statistics.of(version);
    return {
      name,
      version,
      last_inference: s.lastInference,
      inference_count: s.inferenceCount,
      execution_count: s.executionCount,
      inference_stats: {
        success: copy(s.success),
        fail: copy(s.fail),
        queue: copy(s.queue),
        compute_input: copy(s.computeInput),
        compute_infer: copy(s.computeInfer),
        compute_output: copy(s.computeOutput),
        cache_hit: none(),
        cache_miss: none(),
      },
      response_stats: {},
      // Per batch size: the agent times a batch's execution as a whole (compute_infer); input and output handling
      // is per request (inference_stats), so the per-batch compute_input and compute_output are 0 ns.
      batch_stats: [...s.batches.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([size, d]) => ({
          batch_size: size,
          compute_input: { count: d.count, ns: 0 },
          compute_infer: copy(d),
          compute_output: { count: d.count, ns: 0 },
        })),
      memory_usage: [],
    };
  });
}
