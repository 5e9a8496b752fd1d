import { load } from "js-yaml";
import { ResourceRequirements } from "kubernetes-models/v1/ResourceRequirements";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseProtobufText, protobufTextProblems } from "@/testing/protobuf-text";
import { TRITON_MODEL_CONFIG_PROTO } from "@/testing/triton-model-config";
import {
  exportFormats,
  exportModelName,
  exportPlan,
  nearestUniformPlan,
  PlanNotExpressibleError,
  type ExportablePlan,
} from "./plan-export";

const tritonSchema = TRITON_MODEL_CONFIG_PROTO;

// OpenVINO Model Server's config.json, as its own schema (src/schema.cpp, models_config_schema) describes the fields
// an export writes: additional properties are refused there, and here.
const ovmsSchema = z.strictObject({
  model_config_list: z
    .array(
      z.strictObject({
        config: z.strictObject({
          name: z.string().min(1),
          base_path: z.string().min(1),
          target_device: z.string(),
          batch_size: z.union([z.string().regex(/^(auto|\d+)$/), z.number().int()]),
          nireq: z.number().int().min(0),
          plugin_config: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
        }),
      }),
    )
    .min(1),
});

// Worked example 1, the exact case: ⟨2, 2, 4⟩ on 4 cores, B = 8, a 0.5 ms batching delay. Two instances of two
// threads, each on batches of four: Triton says count: 2 / KIND_CPU, intra_op_thread_count "2", preferred batch 4,
// max_batch_size 4 and a 500 µs queue delay; OVMS 2 streams, 4 threads, nireq 2, batch 4; KServe 4 whole CPUs.
const exact: ExportablePlan = { instances: [{ count: 2, threads: 2, batch: 4 }], batchSize: 8, batchTimeoutMs: 0.5 };

// Worked example 2, mixed shapes: ⟨1, 3, 5⟩ + ⟨2, 2, 4⟩ on 7 cores, B = 13. Three instances; 7 threads shared by
// three is 2 each, ⌊7/3⌋ (1 core idle, never more than the budget); ⌈13/3⌉ = 5 samples each, so three batches
// still cover B. The shares 5 and 4 were uneven too.
const mixed: ExportablePlan = {
  instances: [
    { count: 1, threads: 3, batch: 5 },
    { count: 2, threads: 2, batch: 4 },
  ],
  batchSize: 13,
  batchTimeoutMs: 0,
};

// Worked example 3, pinned: ⟨2, 1, 1⟩ on CPUs 0 and 1: the shape is exact, the CPU lists are not expressible.
const pinned: ExportablePlan = { instances: [{ count: 2, threads: 1, batch: 1, cpus: ["0", "1"] }], batchTimeoutMs: 0 };

describe("nearest uniform plan", () => {
  it("a single group whose B is count·batch is exact", () => {
    expect(nearestUniformPlan(exact)).toEqual({
      uniform: { count: 2, threads: 2, batch: 4, batchTimeoutMs: 0.5 },
      differences: [],
    });
  });

  it("mixed shapes: 3 instances of ⌊7/3⌋ = 2 threads (1 core idle) on ⌈13/3⌉ = 5 samples, both losses named", () => {
    const { uniform, differences } = nearestUniformPlan(mixed);
    expect(uniform).toEqual({ count: 3, threads: 2, batch: 5, batchTimeoutMs: 0 });
    expect(differences.map((d) => d.kind)).toEqual(["shape", "batch-shares"]);
    expect(differences[0]!.message).toMatch(
      /1×⟨t=3, b=5⟩ \+ 2×⟨t=2, b=4⟩.*2 threads.*1 of the plan's 7 cores left idle/,
    );
    expect(differences[1]!.message).toMatch(/uneven batch shares \(4, 5 samples per instance\).*up to 5/);
  });

  it("uneven batch shares with even threads: ⟨1,2,4⟩ + ⟨1,2,3⟩ (B = 7) → 2 × ⟨2, 4⟩, only the shares lost", () => {
    const { uniform, differences } = nearestUniformPlan({
      instances: [
        { count: 1, threads: 2, batch: 4 },
        { count: 1, threads: 2, batch: 3 },
      ],
      batchTimeoutMs: 0,
    });
    expect(uniform).toEqual({ count: 2, threads: 2, batch: 4, batchTimeoutMs: 0 });
    expect(differences.map((d) => d.kind)).toEqual(["batch-shares"]);
  });

  it("a dispatcher batch that is not the shares' sum: ⟨2,1,4⟩ with B = 7 → batches of up to ⌈7/2⌉ = 4", () => {
    const { uniform, differences } = nearestUniformPlan({
      instances: [{ count: 2, threads: 1, batch: 4 }],
      batchSize: 7,
      batchTimeoutMs: 0,
    });
    expect(uniform.batch).toBe(4);
    expect(differences).toEqual([
      { kind: "dispatch-batch", message: expect.stringMatching(/B = 7 .*Σ count·batch = 8/) },
    ]);
  });

  it("never gives an instance fewer than one thread, nor the plan more cores than it had", () => {
    for (const plan of [exact, mixed, pinned]) {
      const { uniform } = nearestUniformPlan(plan);
      const cores = plan.instances.reduce((s, g) => s + g.count * g.threads, 0);
      expect(uniform.threads).toBeGreaterThanOrEqual(1);
      expect(uniform.count * uniform.threads).toBeLessThanOrEqual(cores);
    }
  });
});

describe("Triton config.pbtxt", () => {
  it("worked example 1: count 2 KIND_CPU, intra-op 2, preferred batch 4, 500 µs; valid against model_config.proto", () => {
    const out = exportPlan({ modelName: "ResNet 50", plan: exact }, "triton");
    expect(out.fileName).toBe("config.pbtxt");
    expect(out.differences).toEqual([]);
    const parsed = parseProtobufText(out.content);
    expect(protobufTextProblems(tritonSchema, "inference.ModelConfig", parsed)).toEqual([]);
    expect(parsed).toEqual({
      name: "resnet-50",
      backend: "onnxruntime",
      max_batch_size: 4,
      instance_group: [{ count: 2, kind: "KIND_CPU" }],
      dynamic_batching: { preferred_batch_size: [4], max_queue_delay_microseconds: 500 },
      parameters: [
        { key: "intra_op_thread_count", value: { string_value: "2" } },
        { key: "inter_op_thread_count", value: { string_value: "1" } },
      ],
    });
  });

  it("the schema check can fail: a misspelt field and a bad enum are named", () => {
    const problems = protobufTextProblems(
      tritonSchema,
      "inference.ModelConfig",
      parseProtobufText("max_batch: 4\ninstance_group [ { kind: KIND_TPU } ]"),
    );
    expect(problems).toEqual([
      "max_batch: no such field in ModelConfig",
      "instance_group.kind: KIND_TPU is not a Kind",
    ]);
  });

  it("worked example 2 exports 3 instances of 2 threads on batches of 5, saying what was lost", () => {
    const out = exportPlan({ modelName: "bert", plan: mixed }, "triton");
    const parsed = parseProtobufText(out.content) as {
      instance_group: Array<{ count: number }>;
      max_batch_size: number;
    };
    expect(parsed.instance_group[0]!.count).toBe(3);
    expect(parsed.max_batch_size).toBe(5);
    expect(out.content).toContain('string_value: "2"');
    expect(out.differences.map((d) => d.kind)).toEqual(["shape", "batch-shares"]);
  });
});

describe("OpenVINO Model Server config.json", () => {
  it("worked example 1: 2 streams, 4 inference threads, nireq 2, batch 4; the batching delay is named as lost", () => {
    const out = exportPlan({ modelName: "resnet", plan: exact, storageUri: "/models/resnet" }, "ovms");
    const parsed = ovmsSchema.parse(JSON.parse(out.content));
    expect(parsed.model_config_list[0]!.config).toEqual({
      name: "resnet",
      base_path: "/models/resnet",
      target_device: "CPU",
      batch_size: "4",
      nireq: 2,
      plugin_config: { NUM_STREAMS: "2", INFERENCE_NUM_THREADS: "4", ENABLE_CPU_PINNING: true },
    });
    expect(out.differences).toEqual([
      { kind: "batching-delay", message: expect.stringMatching(/0\.5 ms batch timeout is dropped/) },
    ]);
  });
});

describe("KServe InferenceService", () => {
  it("worked example 1: Triton runtime, v2 protocol, 4 whole CPUs requested = limited; resources valid by Kubernetes' schema", () => {
    const out = exportPlan({ modelName: "resnet", plan: exact, storageUri: "s3://bucket/repo" }, "kserve");
    const manifest = load(out.content) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string };
      spec: { predictor: { model: Record<string, unknown> & { resources: unknown } } };
    };
    expect(manifest.apiVersion).toBe("serving.kserve.io/v1beta1");
    expect(manifest.kind).toBe("InferenceService");
    expect(manifest.metadata.name).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    const model = manifest.spec.predictor.model;
    expect(model).toMatchObject({
      modelFormat: { name: "onnx" },
      runtime: "kserve-tritonserver",
      protocolVersion: "v2",
      storageUri: "s3://bucket/repo",
    });
    expect(() =>
      new ResourceRequirements(model.resources as ConstructorParameters<typeof ResourceRequirements>[0]).validate(),
    ).not.toThrow();
    expect(model.resources).toEqual({ requests: { cpu: "4" }, limits: { cpu: "4" } });
    expect(() =>
      new ResourceRequirements({
        requests: { cpu: 4 as unknown as string },
        limits: [] as unknown as Record<string, string>,
      }).validate(),
    ).toThrow();
  });
});

describe("pinning and --strict", () => {
  it("worked example 3: the CPU lists are named as lost in every format", () => {
    for (const format of exportFormats) {
      const out = exportPlan({ modelName: "m", plan: pinned }, format);
      expect(out.differences).toEqual([{ kind: "pinning", message: expect.stringContaining("(0; 1)") }]);
    }
  });

  it("strict refuses a plan the format cannot express, naming every loss; allowed kinds pass", () => {
    expect(() => exportPlan({ modelName: "m", plan: mixed }, "triton", { strict: true })).toThrow(
      PlanNotExpressibleError,
    );
    expect(() => exportPlan({ modelName: "m", plan: mixed }, "triton", { strict: true })).toThrow(
      /mixed instance shapes.*uneven batch shares/,
    );
    expect(() => exportPlan({ modelName: "m", plan: pinned }, "triton", { strict: true })).toThrow(/CPU lists/);
    expect(
      exportPlan({ modelName: "m", plan: pinned }, "triton", { strict: true, allow: ["pinning"] }).differences.map(
        (d) => d.kind,
      ),
    ).toEqual(["pinning"]);
    expect(exportPlan({ modelName: "m", plan: exact }, "triton", { strict: true }).differences).toEqual([]);
  });
});

describe("model names", () => {
  it("become a DNS-1035 label every target accepts", () => {
    expect(exportModelName("ResNet 50 (v2)")).toBe("resnet-50-v2");
    expect(exportModelName("9lives")).toBe("lives");
    expect(exportModelName("___")).toBe("model");
    expect(exportModelName("a".repeat(80))).toHaveLength(63);
  });
});
