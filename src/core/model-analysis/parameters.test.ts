import { describe, expect, it } from "vitest";
import { countParameters } from "./parameters";
import { emptyGraph, floatInit, node, tinyCnnGraph } from "./fixtures";

describe("countParameters", () => {
  it("tiny CNN: 1,570 parameters, running statistics excluded, 6,344 weight bytes", () => {
    // conv1 8·3·3·3 = 216; bn1 γ+β = 8+8 = 16; conv2 16·8·3·3 + 16 = 1,152 + 16 = 1,168; fc 10·16 + 10 = 170.
    // 216 + 16 + 1,168 + 170 = 1,570. Running mean + variance = 16 elements, not parameters.
    // Weight bytes count every initializer: (1,570 + 16) × 4 B = 6,344 B.
    const c = countParameters(tinyCnnGraph());
    expect(c.parameters).toBe(1570);
    expect(c.batchNormStatistics).toBe(16);
    expect(c.weightBytes).toBe(6344);
    expect(c.initializers).toBe(9);
    expect(c.externalInitializers).toEqual([]);
  });

  it("integer initializers cost bytes but are not parameters; float16 counts 2 B an element", () => {
    // shape [4] int64 = 32 B, not a parameter; half [10, 10] = 100 params, 200 B; w float32 [3] = 3 params, 12 B.
    const g = emptyGraph({
      initializers: [
        { name: "shape", dataType: "int64", dims: [4], external: false, storedBytes: 32 },
        { name: "half", dataType: "float16", dims: [10, 10], external: false, storedBytes: 200 },
        floatInit("w", [3]),
      ],
    });
    const c = countParameters(g);
    expect(c.parameters).toBe(103);
    expect(c.weightBytes).toBe(32 + 200 + 12);
  });

  it("an initializer listed twice is counted once", () => {
    const g = emptyGraph({ initializers: [floatInit("w", [5]), floatInit("w", [5])] });
    expect(countParameters(g)).toMatchObject({ parameters: 5, weightBytes: 20, initializers: 1 });
  });

  it("a tied weight used by two nodes is one initializer, counted once", () => {
    // GPT-2's token embedding feeds both Gather and the LM head's Gemm: 6 × 4 = 24 parameters, once.
    const g = emptyGraph({
      initializers: [floatInit("wte", [6, 4])],
      nodes: [node("Gather", ["wte", "ids"], ["e"]), node("Gemm", ["h", "wte"], ["logits"])],
    });
    expect(countParameters(g).parameters).toBe(24);
  });

  it("strings use the bytes stored; external initializers are listed", () => {
    const g = emptyGraph({
      initializers: [
        { name: "vocab", dataType: "string", dims: [3], external: false, storedBytes: 17 },
        { ...floatInit("big", [1000]), external: true },
      ],
    });
    const c = countParameters(g);
    expect(c.weightBytes).toBe(17 + 4000);
    expect(c.parameters).toBe(1000);
    expect(c.externalInitializers).toEqual(["big"]);
  });
});

describe("countParameters: weights wherever they live", () => {
  const tensorAttr = (dataType: string, dims: number[]) => ({ kind: "tensor" as const, dataType, dims });

  it("Constant nodes holding weights count; single numbers and integer shapes do not", () => {
    // w: Constant float32 [16, 8] = 128 params, 512 B; b: Constant float32 [16] = 16 params, 64 B.
    // eps: Constant float32 [] (one element) is a literal; shape: Constant int64 [2] is code. Neither counts.
    // Total 144 parameters, 576 B, in 2 stored tensors, both Constant nodes.
    const g = emptyGraph({
      nodes: [
        node("Constant", [], ["w"], { value: tensorAttr("float32", [16, 8]) }),
        node("Constant", [], ["b"], { value: tensorAttr("float32", [16]) }),
        node("Constant", [], ["eps"], { value: tensorAttr("float32", []) }),
        node("Constant", [], ["shape"], { value: tensorAttr("int64", [2]) }),
        node("Gemm", ["x", "w", "b"], ["y"], { transB: { kind: "int", value: 1 } }),
      ],
    });
    const c = countParameters(g);
    expect(c).toMatchObject({ parameters: 144, weightBytes: 576, initializers: 2, constantNodes: 2, inSubgraphs: 0 });
  });

  it("value_floats Constants count as a float32 vector", () => {
    // 5 floats = 5 params, 20 B.
    const g = emptyGraph({
      nodes: [node("Constant", [], ["v"], { value_floats: { kind: "floats", value: [1, 2, 3, 4, 5] } })],
    });
    expect(countParameters(g)).toMatchObject({ parameters: 5, weightBytes: 20 });
  });

  it("initializers and Constants inside If branches count", () => {
    // then: initializer [4, 4] = 16; else: Constant [4, 4] = 16 and initializer [4] = 4. Top level: [4] = 4.
    // 16 + 16 + 4 + 4 = 40 params; 3 of the 4 stored tensors live in bodies.
    const branch = (initializers: ReturnType<typeof floatInit>[], nodes: ReturnType<typeof node>[]) => ({
      name: "b",
      inputs: [],
      outputs: [],
      initializers,
      nodes,
      valueInfo: [],
    });
    const g = emptyGraph({
      initializers: [floatInit("top", [4])],
      nodes: [
        node("If", ["cond"], ["y"], {
          then_branch: { kind: "graph", graphs: [branch([floatInit("wt", [4, 4])], [])] },
          else_branch: {
            kind: "graph",
            graphs: [
              branch([floatInit("be", [4])], [node("Constant", [], ["we"], { value: tensorAttr("float32", [4, 4]) })]),
            ],
          },
        }),
      ],
    });
    expect(countParameters(g)).toMatchObject({ parameters: 40, initializers: 4, inSubgraphs: 3, weightBytes: 160 });
  });

  it("int8 weights of quantized operators count at 1 B each; scales and zero points are not parameters", () => {
    // QLinearConv: w int8 [8, 3, 3, 3] = 216 params, 216 B; bias int32 [8] = 8 params, 32 B.
    // Scales float32 [] ×3 and zero points (uint8, int8, uint8 scalars) = 6 elements of quantization state, 3·4 + 3 = 15 B.
    // MatMulInteger: b uint8 [16, 4] = 64 params, 64 B; its zero point uint8 [] = 1 element, 1 B (7 state elements in all).
    // fp16 initializer [10] = 10 params, 20 B.
    // parameters = 216 + 8 + 64 + 10 = 298; bytes = 216 + 32 + 15 + 64 + 1 + 20 = 348.
    const q = (name: string, dataType: string, dims: number[]) => ({
      name,
      dataType,
      dims,
      external: false,
      storedBytes: 0,
    });
    const g = emptyGraph({
      initializers: [
        q("x_scale", "float32", []),
        q("x_zp", "uint8", []),
        q("w", "int8", [8, 3, 3, 3]),
        q("w_scale", "float32", []),
        q("w_zp", "int8", []),
        q("y_scale", "float32", []),
        q("y_zp", "uint8", []),
        q("bias", "int32", [8]),
        q("b", "uint8", [16, 4]),
        q("b_zp", "uint8", []),
        q("half", "float16", [10]),
      ],
      nodes: [
        node("QLinearConv", ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", "bias"], ["y"]),
        node("MatMulInteger", ["a", "b", "", "b_zp"], ["z"]),
      ],
    });
    const c = countParameters(g);
    expect(c.parameters).toBe(298);
    expect(c.quantizationParameters).toBe(7);
    expect(c.weightBytes).toBe(348);
  });
});
