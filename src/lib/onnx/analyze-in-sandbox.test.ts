// The upload path's analysis runs in a watched child: the same answer as in-process, typed refusals come back
// typed, and a file that needs more memory than the limit costs the child (killed), not this process.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ModelAnalysisInputError } from "@/core/model-analysis/errors";
import { zooEntry } from "@/modelzoo/registry";
import { analyzeOnnxFileInSandbox } from "./analyze-in-sandbox";
import { analyzeOnnxFile } from "./analyze-model";
import { OnnxFileError } from "./decode-model";
import { randomBytes } from "./test-models";
import { ModelRejectedError } from "./validate-model";

const dir = mkdtempSync(join(tmpdir(), "analyze-sandbox-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, bytes: Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};
const limits = { timeoutMs: 60_000, memoryLimitBytes: 2 * 1024 ** 3 };

describe("analyzeOnnxFileInSandbox", () => {
  it("answers what the in-process analysis answers (tiny transformer, sequence fixed by the caller)", async () => {
    const path = file("tt.onnx", zooEntry("tiny-transformer").build());
    const sandboxed = await analyzeOnnxFileInSandbox(path, { dims: { sequence: 8 } }, limits);
    const inProcess = await analyzeOnnxFile(path, { dims: { sequence: 8 }, probe: limits });
    expect(sandboxed.flops.status).toBe("counted");
    if (sandboxed.flops.status === "counted" && inProcess.flops.status === "counted") {
      expect(sandboxed.flops.perSample.total).toBe(475_136);
      expect({ ...sandboxed.flops, peakRssBytes: 0 }).toEqual({ ...inProcess.flops, peakRssBytes: 0 });
    }
    expect(sandboxed.summary).toEqual(inProcess.summary);
    expect(sandboxed.dimValues).toEqual({ sequence: 8 });
  }, 120_000);

  it("brings the analysis's typed refusals back typed: not ONNX, a bad batch axis", async () => {
    await expect(analyzeOnnxFileInSandbox(file("junk.onnx", randomBytes(4096)), {}, limits)).rejects.toBeInstanceOf(
      OnnxFileError,
    );
    const cnn = file("cnn.onnx", zooEntry("tiny-cnn").build());
    const refused = await analyzeOnnxFileInSandbox(cnn, { batchAxes: { "no-such-tensor": 0 } }, limits).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ModelAnalysisInputError);
    expect((refused as Error).message).toMatch(/no-such-tensor/);
  }, 120_000);

  it("a decode past the memory limit kills the child and is refused as MEMORY_LIMIT; this process carries on", async () => {
    const path = file("cnn-small-limit.onnx", zooEntry("tiny-cnn").build());
    // Node alone is resident above 16 MiB: the child cannot stay under it.
    const refused = await analyzeOnnxFileInSandbox(
      path,
      {},
      { timeoutMs: 60_000, memoryLimitBytes: 16 * 1024 ** 2 },
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ModelRejectedError);
    expect((refused as ModelRejectedError).code).toBe("MEMORY_LIMIT");
  }, 120_000);
});
