import { describe, expect, it } from "vitest";
import { ModelAnalysisInputError } from "./errors";
import { checkDimensionValues, concreteShape, servingAxes } from "./serving-axes";

const image = [{ name: "x", shape: ["N", 3, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"] }];
const recurrentIn = [
  { name: "x", shape: ["batch", 8] },
  { name: "h0", shape: [2, "batch", 16] },
];
const recurrentOut = [
  { name: "y", shape: ["batch", 16] },
  { name: "hN", shape: [2, "batch", 16] },
];

describe("servingAxes", () => {
  it("two dynamic image dimensions besides the batch: both must be fixed, named with tensor and axis", () => {
    const a = servingAxes(image, [{ name: "y", shape: ["N", 4] }]);
    expect(a.batchSymbol).toBe("N");
    expect(a.mustFix).toEqual([
      { key: "p2o.DynamicDimension.1", tensor: "x", axis: 2, label: 'x[2] "p2o.DynamicDimension.1"' },
      { key: "p2o.DynamicDimension.2", tensor: "x", axis: 3, label: 'x[3] "p2o.DynamicDimension.2"' },
    ]);
    expect(a.batching).toEqual({ batchable: true });
  });

  it("the batch symbol marks each tensor's own axis: [layers, batch, hidden] state batches on axis 1", () => {
    const a = servingAxes(recurrentIn, recurrentOut);
    expect(a.inputs.map((t) => t.batchAxis)).toEqual([0, 1]);
    expect(a.outputs.map((t) => t.batchAxis)).toEqual([0, 1]);
    expect(a.batching.batchable).toBe(true);
  });

  it("a scalar input makes the model unbatchable, naming the tensor", () => {
    const a = servingAxes([...recurrentIn, { name: "gain", shape: [] }], recurrentOut);
    expect(a.batching).toMatchObject({ batchable: false, tensor: "gain" });
  });

  it("no dynamic leading dimension anywhere: unbatchable", () => {
    expect(servingAxes([{ name: "x", shape: [1, 8] }], [{ name: "y", shape: [1, 8] }]).batching).toMatchObject({
      batchable: false,
      tensor: null,
    });
  });

  it("an override moves a tensor's batch axis or takes it away; a bad one names the tensor and axis", () => {
    // Shared state the user says must not be concatenated: h0 gets no batch axis, so the model is unbatchable.
    expect(servingAxes(recurrentIn, recurrentOut, { h0: null }).batching).toMatchObject({
      batchable: false,
      tensor: "h0",
    });
    // Time-major input [T, batch, F] with an unnamed batch: the user points at axis 1.
    const a = servingAxes([{ name: "seq", shape: [null, null, 4] }], [{ name: "out", shape: [null, null, 4] }], {
      seq: 1,
      out: 1,
    });
    expect(a.inputs[0]).toEqual({ name: "seq", role: "input", batchAxis: 1, fixed: [{ axis: 0, key: "seq[0]" }] });
    expect(() => servingAxes(recurrentIn, recurrentOut, { h0: 0 })).toThrow(/h0.*dimension 0 is fixed at 2/);
    expect(() => servingAxes(recurrentIn, recurrentOut, { h0: 5 })).toThrow(/h0.*axis 5 does not exist/);
    expect(() => servingAxes(recurrentIn, recurrentOut, { nope: 0 })).toThrow(ModelAnalysisInputError);
  });
});

describe("checkDimensionValues", () => {
  const a = servingAxes(image, [{ name: "y", shape: ["N", 4] }]);
  it("accepts exactly the dimensions to fix", () => {
    expect(() =>
      checkDimensionValues(a, { "p2o.DynamicDimension.1": 224, "p2o.DynamicDimension.2": 224 }),
    ).not.toThrow();
  });
  it("refuses a missing one, naming tensor, axis and symbol", () => {
    expect(() => checkDimensionValues(a, { "p2o.DynamicDimension.1": 224 })).toThrow(
      'dimensions.p2o.DynamicDimension.2: dynamic dimension(s) need a value: x[3] "p2o.DynamicDimension.2"',
    );
  });
  it("refuses an unknown or non-positive one", () => {
    expect(() =>
      checkDimensionValues(a, { "p2o.DynamicDimension.1": 1, "p2o.DynamicDimension.2": 1, width: 3 }),
    ).toThrow(/no dynamic dimension "width"/);
    expect(() => checkDimensionValues(a, { "p2o.DynamicDimension.1": 0, "p2o.DynamicDimension.2": 1 })).toThrow(
      /positive whole number, got 0/,
    );
  });
});

describe("concreteShape", () => {
  it("fills the batch on the tensor's own axis and the fixed dimensions by key", () => {
    const a = servingAxes(recurrentIn, recurrentOut);
    expect(concreteShape(recurrentIn[1]!, a.inputs[1]!, 3, {}, a.batchSymbol)).toEqual([2, 3, 16]);
    const b = servingAxes(image, []);
    expect(
      concreteShape(
        image[0]!,
        b.inputs[0]!,
        1,
        { "p2o.DynamicDimension.1": 32, "p2o.DynamicDimension.2": 48 },
        b.batchSymbol,
      ),
    ).toEqual([1, 3, 32, 48]);
  });
});
