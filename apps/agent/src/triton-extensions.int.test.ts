// Triton's model_configuration and statistics extensions as tritonclient and perf_analyzer read them, over real
// HTTP from a real agent serving the tiny CNN as ⟨2 instances × 1 thread, b = 4⟩, B = 8, 5 ms batch timeout.
// Shapes checked against Triton's documentation (protocol/extension_model_configuration.md,
// protocol/extension_statistics.md and model_config.proto).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { startAgent, type RunningAgent } from "./test-agent-process";

let agent: RunningAgent;
const ROW = 3 * 32 * 32;

const infer = (rows: number, datatype = "FP32") =>
  fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      inputs: [{ name: "input", shape: [rows, 3, 32, 32], datatype, data: new Array(rows * ROW).fill(0.25) }],
    }),
  });

const duration = { count: expect.any(Number), ns: expect.any(Number) };

beforeAll(async () => {
  agent = await startAgent({
    modelBytes: buildTinyCnn({ seed: 5, producerVersion: "packrat-test" }),
    name: "tiny-cnn",
    plan: { instances: [{ count: 2, threads: 1, batch: 4 }], batchTimeoutMs: 5 },
  });
});
afterAll(async () => {
  await agent?.stop();
});

describe("Triton-compatible extensions", () => {
  it("GET /v2 lists only the extensions the agent implements", async () => {
    const meta = await (await fetch(`${agent.url}/v2`)).json();
    expect(meta.extensions).toEqual(["binary_tensor_data", "model_configuration", "statistics"]);
  });

  it("GET /v2/models/{m}/config answers Triton's model configuration: batch size, CPU instance groups, queue delay, tensors", async () => {
    for (const path of ["/v2/models/tiny-cnn/config", "/v2/models/tiny-cnn/versions/1/config"]) {
      const response = await fetch(`${agent.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        name: "tiny-cnn",
        platform: "onnxruntime_onnx",
        backend: "onnxruntime",
        version_policy: { latest: { num_versions: 1 } },
        max_batch_size: 8,
        // With max_batch_size > 0, dims leave out the batch dimension (Triton's rule).
        input: [
          {
            name: "input",
            data_type: "TYPE_FP32",
            format: "FORMAT_NONE",
            dims: [3, 32, 32],
            is_shape_tensor: false,
            allow_ragged_batch: false,
            optional: false,
          },
        ],
        output: [{ name: "logits", data_type: "TYPE_FP32", dims: [10], label_filename: "", is_shape_tensor: false }],
        instance_group: [
          {
            name: "tiny-cnn_0",
            kind: "KIND_CPU",
            count: 2,
            gpus: [],
            secondary_devices: [],
            profile: [],
            passive: false,
            host_policy: "",
          },
        ],
        dynamic_batching: {
          preferred_batch_size: [8],
          max_queue_delay_microseconds: 5000,
          preserve_ordering: false,
          priority_levels: 0,
          default_priority_level: 0,
          priority_queue_policy: {},
        },
        parameters: { packrat_group_0_threads: { string_value: "1" }, packrat_group_0_batch: { string_value: "4" } },
      });
    }
    expect((await fetch(`${agent.url}/v2/models/tiny-cnn/versions/7/config`)).status).toBe(404);
    expect((await fetch(`${agent.url}/v2/models/nope/config`)).status).toBe(404);
  });

  it("GET /v2/models/{m}/stats counts what was served: inferences, executions, successes, failures and stage durations", async () => {
    const before = (await (await fetch(`${agent.url}/v2/models/tiny-cnn/stats`)).json()).model_stats[0];
    expect(before).toMatchObject({
      name: "tiny-cnn",
      version: "1",
      inference_count: 0,
      execution_count: 0,
      last_inference: 0,
    });
    const sizes = [1, 3, 2, 5, 4, 1, 7];
    const ok = await Promise.all(sizes.map((rows) => infer(rows)));
    for (const r of ok) {
      expect(r.status).toBe(200);
      await r.body?.cancel();
    }
    const bad = await infer(1, "INT32"); // a 400: counted as a failure
    expect(bad.status).toBe(400);
    await bad.body?.cancel();

    const response = await fetch(`${agent.url}/v2/models/tiny-cnn/stats`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ model_stats: [expect.any(Object)] });
    const stat = body.model_stats[0];
    // Triton's $model_stat: every documented field, in its type.
    expect(stat).toEqual({
      name: "tiny-cnn",
      version: "1",
      last_inference: expect.any(Number),
      inference_count: expect.any(Number),
      execution_count: expect.any(Number),
      inference_stats: {
        success: duration,
        fail: duration,
        queue: duration,
        compute_input: duration,
        compute_infer: duration,
        compute_output: duration,
        cache_hit: duration,
        cache_miss: duration,
      },
      response_stats: {},
      batch_stats: expect.any(Array),
      memory_usage: [],
    });
    const rows = sizes.reduce((a, b) => a + b, 0);
    expect(stat.inference_count).toBe(rows);
    expect(stat.execution_count).toBeGreaterThanOrEqual(Math.ceil(rows / 8));
    expect(stat.execution_count).toBeLessThanOrEqual(sizes.length);
    expect(Date.now() - stat.last_inference).toBeLessThan(60_000);
    const s = stat.inference_stats;
    expect(s.success.count).toBe(sizes.length);
    expect(s.fail.count).toBe(1);
    for (const stage of ["queue", "compute_input", "compute_infer", "compute_output"]) {
      expect({ stage, count: s[stage].count }).toEqual({ stage, count: sizes.length });
      expect(s[stage].ns).toBeGreaterThan(0);
      expect(Number.isInteger(s[stage].ns)).toBe(true);
    }
    // A request's stages happen within its total time.
    expect(s.queue.ns + s.compute_infer.ns).toBeLessThanOrEqual(s.success.ns);
    // batch_stats: one entry per batch size, adding up to the executions and the inferences.
    const batches = stat.batch_stats as Array<{ batch_size: number; compute_infer: { count: number; ns: number } }>;
    expect(batches.reduce((a, b) => a + b.compute_infer.count, 0)).toBe(stat.execution_count);
    expect(batches.reduce((a, b) => a + b.batch_size * b.compute_infer.count, 0)).toBe(rows);
    for (const b of batches)
      expect(b).toEqual({
        batch_size: expect.any(Number),
        compute_input: { count: b.compute_infer.count, ns: 0 },
        compute_infer: duration,
        compute_output: { count: b.compute_infer.count, ns: 0 },
      });

    // The same through the version's URL and the all-models URL.
    expect(
      (await (await fetch(`${agent.url}/v2/models/tiny-cnn/versions/1/stats`)).json()).model_stats[0].inference_count,
    ).toBe(rows);
    const all = await (await fetch(`${agent.url}/v2/models/stats`)).json();
    expect(all.model_stats.map((m: { name: string; version: string }) => [m.name, m.version])).toEqual([
      ["tiny-cnn", "1"],
    ]);
    expect((await fetch(`${agent.url}/v2/models/tiny-cnn/versions/7/stats`)).status).toBe(404);
  });
});
