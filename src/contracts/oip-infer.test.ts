import { describe, expect, it } from "vitest";
import { oipInferRequestSchema } from "./oip-infer";

const request = (parameters: Record<string, unknown>) => ({
  parameters,
  inputs: [{ name: "x", shape: [1], datatype: "FP32", data: [1] }],
});

describe("the inference request schema", () => {
  it("takes the protocol's scalar parameters, and a gRPC parameter that names no choice", () => {
    expect(
      oipInferRequestSchema.safeParse(
        request({ deadline_ms: 50, binary_data_output: true, packrat_fault: "throw", none: undefined }),
      ).success,
    ).toBe(true);
  });

  it("refuses a nested parameter value at its path, however deep, without walking it", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const parsed = oipInferRequestSchema.safeParse(request({ deadline_ms: deep }));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["parameters", "deadline_ms"]);
  });
});
