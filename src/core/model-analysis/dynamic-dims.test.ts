import { describe, expect, it } from "vitest";
import { findDynamicDims, resolveInputShapes } from "./dynamic-dims";
import { ModelAnalysisInputError } from "./errors";
import { emptyGraph } from "./fixtures";

const bertLike = emptyGraph({
  inputs: [
    { name: "input_ids", dataType: "int64", shape: ["batch", "sequence"] },
    { name: "attention_mask", dataType: "int64", shape: ["batch", "sequence"] },
  ],
});

describe("findDynamicDims", () => {
  it("BERT-like inputs: the batch is profiled, the sequence length must be fixed (named once)", () => {
    const d = findDynamicDims(bertLike);
    expect(d.dims.map((x) => [x.input, x.axis, x.role])).toEqual([
      ["input_ids", 0, "batch"],
      ["input_ids", 1, "fix"],
      ["attention_mask", 0, "batch"],
      ["attention_mask", 1, "fix"],
    ]);
    expect(d.mustFix).toEqual(["sequence"]);
  });

  it("a CNN with fixed 3×224×224 has only the batch dynamic", () => {
    const g = emptyGraph({ inputs: [{ name: "x", dataType: "float32", shape: ["N", 3, 224, 224] }] });
    expect(findDynamicDims(g).mustFix).toEqual([]);
  });

  it("unnamed dimensions are keyed input[axis]; a symbol is the batch only if it is the first input's; unknown rank is flagged", () => {
    // x's leading dimension is unnamed, so unnamed leading dimensions are the batch; "N" leads y but is not x's
    // batch dimension, so it is a dimension to fix like x[2]; y (leading "N", not unnamed) has no batch axis.
    const g = emptyGraph({
      inputs: [
        { name: "x", dataType: "float32", shape: [null, 3, null, "N"] },
        { name: "y", dataType: "float32", shape: ["N", 2] },
        { name: "z", dataType: "float32", shape: null },
      ],
    });
    const d = findDynamicDims(g);
    expect(d.mustFix).toEqual(["x[2]", "N"]);
    expect(d.dims.find((x) => x.input === "x" && x.axis === 3)?.role).toBe("fix");
    expect(d.unknownRank).toEqual(["z"]);
    expect(d.batchAxes).toMatchObject({ x: 0, y: null });
    expect(d.batching?.batchable).toBe(false);
  });

  it("state shaped [layers, batch, hidden] has its batch on axis 1; a scalar input makes the model unbatchable", () => {
    const g = emptyGraph({
      inputs: [
        { name: "x", dataType: "float32", shape: ["batch", 8] },
        { name: "h0", dataType: "float32", shape: [2, "batch", 16] },
        { name: "gain", dataType: "float32", shape: [] },
      ],
      outputs: [{ name: "hN", dataType: "float32", shape: [2, "batch", 16] }],
    });
    const d = findDynamicDims(g);
    expect(d.batchAxes).toEqual({ x: 0, h0: 1, gain: null, hN: 1 });
    expect(d.mustFix).toEqual([]);
    expect(d.batching).toEqual({
      batchable: false,
      tensor: "gain",
      reason: 'input "gain" [] has no batch axis (no "batch" dimension), so requests cannot be concatenated',
    });
  });
});

describe("resolveInputShapes", () => {
  it("fills batch 1 and sequence 128", () => {
    expect(resolveInputShapes(bertLike, { sequence: 128 }).map((i) => i.shape)).toEqual([
      [1, 128],
      [1, 128],
    ]);
  });
  it("uses the batch asked for", () => {
    expect(resolveInputShapes(bertLike, { sequence: 8 }, 4)[0]?.shape).toEqual([4, 8]);
  });
  it("names the dimensions still unfixed", () => {
    const run = () => resolveInputShapes(bertLike, {});
    expect(run).toThrow(ModelAnalysisInputError);
    expect(run).toThrow(/sequence/);
  });
  it("rejects a zero or fractional value, naming the parameter", () => {
    expect(() => resolveInputShapes(bertLike, { sequence: 0 })).toThrow(/values/);
    expect(() => resolveInputShapes(bertLike, { sequence: 2.5 })).toThrow(/values/);
    expect(() => resolveInputShapes(bertLike, { sequence: 2 }, 0)).toThrow(/batch/);
  });
  it("refuses an input of unknown rank", () => {
    const g = emptyGraph({ inputs: [{ name: "z", dataType: "float32", shape: null }] });
    expect(() => resolveInputShapes(g, {})).toThrow(/no shape for input\(s\) z/);
  });
});
