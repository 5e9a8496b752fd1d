import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { probeShapes, ShapeProbeError } from "./probe-shapes";

const dir = mkdtempSync(join(tmpdir(), "probe-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const mlp = file("mlp.onnx", zooEntry("tiny-mlp").build());
const mlpInput = [{ name: "input", dataType: "float32", shape: [1, 64] }];

async function failure(promise: Promise<unknown>): Promise<ShapeProbeError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ShapeProbeError) return error;
    throw error;
  }
  throw new Error("expected the probe to fail");
}

describe("probeShapes", () => {
  it("returns the shape of every intermediate of the tiny MLP at batch 1", async () => {
    const { shapes, peakRssBytes } = await probeShapes(mlp, mlpInput);
    // input [1,64] → fc1 [1,128] → relu → fc2 [1,64] → relu → fc3 [1,10] → logits (Identity) [1,10]
    expect(shapes.get("input")).toEqual([1, 64]);
    expect(shapes.get("fc1")).toEqual([1, 128]);
    expect(shapes.get("fc2")).toEqual([1, 64]);
    expect(shapes.get("fc3")).toEqual([1, 10]);
    expect(shapes.get("logits")).toEqual([1, 10]);
    expect(shapes.size).toBe(7);
    expect(peakRssBytes === null || peakRssBytes > 0).toBe(true);
  }, 30_000);

  it("stops a run past its time limit with a TIMEOUT error", async () => {
    // 1 ms cannot cover starting Node and loading ONNX Runtime.
    const e = await failure(probeShapes(mlp, mlpInput, { timeoutMs: 1 }));
    expect(e.code).toBe("TIMEOUT");
    expect(e.message).toMatch(/longer than 1 ms/);
  }, 30_000);

  it("stops a child past its memory limit with a MEMORY_LIMIT error", async () => {
    // Node alone needs more than 16 MiB resident.
    const e = await failure(probeShapes(mlp, mlpInput, { memoryLimitBytes: 16 * 1024 ** 2 }));
    expect(e.code).toBe("MEMORY_LIMIT");
  }, 30_000);

  it("reports a run failure (wrong input shape) as RUN_FAILED", async () => {
    const e = await failure(probeShapes(mlp, [{ name: "input", dataType: "float32", shape: [1, 63] }]));
    expect(e.code).toBe("RUN_FAILED");
  }, 30_000);

  it("refuses an input type it cannot feed", async () => {
    const e = await failure(probeShapes(mlp, [{ name: "input", dataType: "bfloat16", shape: [1, 64] }]));
    expect(e.code).toBe("UNSUPPORTED_INPUT_TYPE");
    expect(e.message).toMatch(/bfloat16/);
  }, 30_000);

  it("reports a missing file as a load failure", async () => {
    const e = await failure(probeShapes(join(dir, "absent.onnx"), mlpInput));
    expect(e.code).toBe("LOAD_FAILED");
  }, 30_000);
});
