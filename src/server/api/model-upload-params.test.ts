import { describe, expect, it } from "vitest";
import { parseBatchAxes, parseDims } from "./model-upload-handler";

describe("upload query parameters", () => {
  it("batchAxes: TENSOR=AXIS or TENSOR=none, comma-separated", () => {
    expect(parseBatchAxes("h0=1, state:none")).toEqual({ h0: 1, state: null });
    expect(parseBatchAxes(null)).toEqual({});
    expect(parseBatchAxes("h0=-1")).toBe('"h0=-1" is not TENSOR=AXIS or TENSOR=none (e.g. h0=1)');
  });
  it("dims: NAME=VALUE", () => {
    expect(parseDims("p2o.DynamicDimension.1=224,p2o.DynamicDimension.2:160")).toEqual({
      "p2o.DynamicDimension.1": 224,
      "p2o.DynamicDimension.2": 160,
    });
    expect(parseDims("height")).toBe('"height" is not NAME=VALUE (e.g. sequence=128)');
  });
});
