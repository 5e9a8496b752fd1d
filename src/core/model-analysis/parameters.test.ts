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
