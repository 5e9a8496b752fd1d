import { describe, expect, it } from "vitest";
import { jsonBodyLimit } from "./json-body-limit";
import type { ModelMetadata } from "./served-model";

const model = (inputs: ModelMetadata["inputs"]): ModelMetadata => ({ name: "m", version: "1", inputs, outputs: [] });
const tensor = (datatype: ModelMetadata["inputs"][number]["datatype"], shape: number[]) => ({
  name: "x",
  datatype,
  shape,
  symbolicDims: shape.map(() => undefined),
});
const MiB = 1024 ** 2;

describe("jsonBodyLimit", () => {
  it("tiny-cnn [N,3,32,32] FP32 with 8 rows: 64 KiB + 3 072 x 8 x 25 chars x 2 = 65 536 + 1 228 800 = 1 294 336 bytes", () => {
    expect(jsonBodyLimit(model([tensor("FP32", [-1, 3, 32, 32])]), 8, 64 * MiB)).toBe(1_294_336);
  });

  it("sums the inputs; a fixed batch dimension counts as is: [2,4] INT64 + [-1,10] BOOL at 100 rows = 65 536 + 8x21x2 + 1000x6x2", () => {
    expect(jsonBodyLimit(model([tensor("INT64", [2, 4]), tensor("BOOL", [-1, 10])]), 100, 64 * MiB)).toBe(
      65_536 + 336 + 12_000,
    );
  });

  it("stops at the fallback: 4 096 rows of tiny-cnn would need 629 MB", () => {
    expect(jsonBodyLimit(model([tensor("FP32", [-1, 3, 32, 32])]), 4096, 64 * MiB)).toBe(64 * MiB);
  });

  it("an open dimension past the batch has no bound: the fallback", () => {
    expect(jsonBodyLimit(model([tensor("FP32", [-1, -1, 80])]), 8, 64 * MiB)).toBe(64 * MiB);
  });

  it("state with its batch on axis 1: [2, -1, 16] FP32 at 8 rows = 65 536 + 32 x 8 x 25 x 2 = 78 336", () => {
    const m = {
      ...model([tensor("FP32", [2, -1, 16])]),
      layout: { kind: "batched" as const, axes: new Map([["x", 1]]) },
    };
    expect(jsonBodyLimit(m, 8, 64 * MiB)).toBe(65_536 + 12_800);
  });

  it("an unbatched model with an open dimension: the fallback", () => {
    const m = { ...model([tensor("FP32", [2, -1, 16])]), layout: { kind: "unbatched" as const, reason: "scalar" } };
    expect(jsonBodyLimit(m, 8, 64 * MiB)).toBe(64 * MiB);
  });
});
