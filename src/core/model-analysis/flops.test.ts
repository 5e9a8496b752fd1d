import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ModelAnalysisInputError } from "./errors";
import { emptyGraph, floatInit, int, ints, node, tinyCnnGraph, tinyCnnShapes } from "./fixtures";
import { countFlops } from "./flops";

describe("countFlops", () => {
  it("tiny CNN at batch 1: 1,044,800 FLOPs, worked by hand", () => {
    // conv1: 2 × (8·32·32 outputs) × (3·3·3 MACs each) = 2 × 8,192 × 27 = 442,368
    // maxpool 2×2: 8·16·16 outputs × 4 window elements      =   8,192
    // conv2: 2 × (16·16·16) × (8·3·3) = 2 × 4,096 × 72      = 589,824
    // global average pool: one per input element 16·16·16  =   4,096
    // Gemm 16→10: 2 × 10 outputs × 16                         =     320
    // total = 442,368 + 8,192 + 589,824 + 4,096 + 320         = 1,044,800
    const r = countFlops(tinyCnnGraph(), tinyCnnShapes(1));
    expect(r.total).toBe(1_044_800);
    expect(r.byOperator).toEqual([
      { opType: "Conv", nodes: 2, flops: 442_368 + 589_824 },
      { opType: "MaxPool", nodes: 1, flops: 8_192 },
      { opType: "GlobalAveragePool", nodes: 1, flops: 4_096 },
      { opType: "Gemm", nodes: 1, flops: 320 },
    ]);
    // BatchNormalization, Relu ×2, Flatten have no formula here.
    expect(r.notCounted).toEqual([
      { opType: "Relu", domain: "", nodes: 2 },
      { opType: "BatchNormalization", domain: "", nodes: 1 },
      { opType: "Flatten", domain: "", nodes: 1 },
    ]);
    expect(r.unresolved).toEqual([]);
  });

  it("tiny CNN at batch 4 costs 4× batch 1 (every counted term is linear in the batch)", () => {
    expect(countFlops(tinyCnnGraph(), tinyCnnShapes(4)).total).toBe(4 * 1_044_800);
  });

  it("depthwise Conv (group = C): 2 × 8·10·10 outputs × (1·3·3) = 14,400", () => {
    const g = emptyGraph({
      initializers: [floatInit("w", [8, 1, 3, 3])],
      nodes: [node("Conv", ["x", "w"], ["y"], { group: int(8), kernel_shape: ints([3, 3]) })],
    });
    const shapes = new Map([
      ["x", [1, 8, 10, 10]],
      ["y", [1, 8, 10, 10]],
    ]);
    expect(countFlops(g, shapes).total).toBe(14_400);
  });

  it("ConvTranspose: each of 4·5·5 inputs feeds 2·3·3 outputs: 2 × 100 × 18 = 3,600", () => {
    const g = emptyGraph({
      initializers: [floatInit("w", [4, 2, 3, 3])],
      nodes: [node("ConvTranspose", ["x", "w"], ["y"])],
    });
    const shapes = new Map([
      ["x", [1, 4, 5, 5]],
      ["y", [1, 2, 7, 7]],
    ]);
    expect(countFlops(g, shapes).total).toBe(3_600);
  });

  it("Gemm with transA: A is [K=5, M=3], Y [3, 7]: 2 × 21 × 5 = 210", () => {
    const g = emptyGraph({ nodes: [node("Gemm", ["a", "b"], ["y"], { transA: int(1) })] });
    const shapes = new Map([
      ["a", [5, 3]],
      ["b", [5, 7]],
      ["y", [3, 7]],
    ]);
    expect(countFlops(g, shapes).total).toBe(210);
  });

  it("MatMul broadcasts: [2,3,4,5]·[5,6] → [2,3,4,6]: 2 × 144 × 5 = 1,440; a 1-D dot product [5]·[5]: 10", () => {
    const g = emptyGraph({ nodes: [node("MatMul", ["a", "b"], ["y"]), node("MatMul", ["u", "v"], ["d"])] });
    const shapes = new Map([
      ["a", [2, 3, 4, 5]],
      ["b", [5, 6]],
      ["y", [2, 3, 4, 6]],
      ["u", [5]],
      ["v", [5]],
      ["d", []],
    ]);
    expect(countFlops(g, shapes).nodes.map((n) => n.flops)).toEqual([1_440, 10]);
  });

  it("AveragePool 3×3 stride 2 on 8×8 → 3×3 outputs × 9 = 81 per channel", () => {
    const g = emptyGraph({
      nodes: [node("AveragePool", ["x"], ["y"], { kernel_shape: ints([3, 3]), strides: ints([2, 2]) })],
    });
    expect(
      countFlops(
        g,
        new Map([
          ["x", [1, 1, 8, 8]],
          ["y", [1, 1, 3, 3]],
        ]),
      ).total,
    ).toBe(81);
  });

  it("a counted node without shapes is reported unresolved, not guessed; custom domains are not counted", () => {
    const g = emptyGraph({
      nodes: [
        node("MatMul", ["a", "b"], ["y"]),
        node("MatMul", ["y", "b"], ["z"]),
        node("FusedThing", ["z"], ["q"], {}, "com.example"),
      ],
    });
    const r = countFlops(
      g,
      new Map([
        ["a", [2, 3]],
        ["b", [3, 3]],
        ["y", [2, 3]],
      ]),
    );
    expect(r.total).toBe(2 * 6 * 3);
    expect(r.unresolved).toEqual([{ node: "z", opType: "MatMul", missing: "z" }]);
    expect(r.notCounted).toEqual([{ opType: "FusedThing", domain: "com.example", nodes: 1 }]);
  });

  it("rejects a shape with a negative or fractional dimension, naming the parameter", () => {
    const bad = () => countFlops(emptyGraph(), new Map([["x", [1, -1]]]));
    expect(bad).toThrow(ModelAnalysisInputError);
    expect(bad).toThrow(/shapes/);
  });

  it("MatMul's formula equals a brute-force count of multiply-adds of numpy matmul (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 0, maxLength: 2 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        (batchDims, m, k, n, broadcastB) => {
          const aShape = [...batchDims, m, k];
          const bShape = broadcastB ? [k, n] : [...batchDims, k, n];
          const yShape = [...batchDims, m, n];
          // Brute force: walk every output element and every term of its dot product.
          let macs = 0;
          const batches = batchDims.reduce((p, d) => p * d, 1);
          for (let b = 0; b < batches; b++)
            for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) for (let t = 0; t < k; t++) macs++;
          const g = emptyGraph({ nodes: [node("MatMul", ["a", "b"], ["y"])] });
          const r = countFlops(
            g,
            new Map([
              ["a", aShape],
              ["b", bShape],
              ["y", yShape],
            ]),
          );
          expect(r.total).toBe(2 * macs);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("Conv's formula equals a brute-force count over output positions, groups and kernel taps (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        (group, cinPerGroup, coutPerGroup, kh, kw, oh, ow) => {
          const cin = group * cinPerGroup;
          const cout = group * coutPerGroup;
          let macs = 0;
          for (let g = 0; g < group; g++)
            for (let co = 0; co < coutPerGroup; co++)
              for (let y = 0; y < oh; y++)
                for (let x = 0; x < ow; x++)
                  for (let ci = 0; ci < cinPerGroup; ci++)
                    for (let i = 0; i < kh; i++) for (let j = 0; j < kw; j++) macs++;
          const graph = emptyGraph({
            initializers: [floatInit("w", [cout, cinPerGroup, kh, kw])],
            nodes: [node("Conv", ["x", "w"], ["y"], { group: int(group) })],
          });
          const shapes = new Map([
            ["x", [1, cin, oh + kh - 1, ow + kw - 1]],
            ["y", [1, cout, oh, ow]],
          ]);
          expect(countFlops(graph, shapes).total).toBe(2 * macs);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("countFlops: quantized operators and bodies", () => {
  const body = (
    nodes: ReturnType<typeof node>[],
    io: {
      inputs?: Array<[string, number[]]>;
      outputs?: Array<[string, number[] | null]>;
      inits?: ReturnType<typeof floatInit>[];
    } = {},
  ) => ({
    name: "body",
    inputs: (io.inputs ?? []).map(([name, shape]) => ({ name, dataType: "float32", shape })),
    outputs: (io.outputs ?? []).map(([name, shape]) => ({ name, dataType: "float32", shape })),
    initializers: io.inits ?? [],
    nodes,
    valueInfo: [],
  });

  it("QLinearConv and ConvInteger count like Conv, QLinearMatMul and MatMulInteger like MatMul", () => {
    // QLinearConv: y [1, 8, 10, 10], w (input 3) [8, 3, 3, 3]: 2 × 800 × 27 = 43,200.
    // ConvInteger: same shapes with w as input 1: 43,200.
    // QLinearMatMul: y [1, 4], a [1, 16]: 2 × 4 × 16 = 128. MatMulInteger: the same, 128.
    const g = emptyGraph({
      nodes: [
        node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y1"]),
        node("ConvInteger", ["x", "w"], ["y2"]),
        node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["z1"]),
        node("MatMulInteger", ["a", "b"], ["z2"]),
      ],
    });
    const shapes = new Map([
      ["x", [1, 3, 12, 12]],
      ["w", [8, 3, 3, 3]],
      ["y1", [1, 8, 10, 10]],
      ["y2", [1, 8, 10, 10]],
      ["a", [1, 16]],
      ["b", [16, 4]],
      ["z1", [1, 4]],
      ["z2", [1, 4]],
    ]);
    const r = countFlops(g, shapes);
    expect(r.total).toBe(2 * 43_200 + 2 * 128);
    expect(r.unresolved).toEqual([]);
  });

  it("If counts its larger branch, with shapes from outer scope and the If's outputs", () => {
    // then: MatMul(x [1, 8], W [8, 4]) → the If's output y [1, 4]: 2 × 4 × 8 = 64.
    // else: Identity: nothing counted. The larger branch, 64, is the total; the If is listed as an upper bound.
    const g = emptyGraph({
      nodes: [
        node(
          "If",
          ["c"],
          ["y"],
          {
            then_branch: {
              kind: "graph",
              graphs: [
                body([node("MatMul", ["x", "W"], ["t"])], { outputs: [["t", null]], inits: [floatInit("W", [8, 4])] }),
              ],
            },
            else_branch: {
              kind: "graph",
              graphs: [body([node("Identity", ["x0"], ["e"])], { outputs: [["e", null]] })],
            },
          },
          "",
        ),
      ],
    });
    const r = countFlops(
      g,
      new Map([
        ["x", [1, 8]],
        ["y", [1, 4]],
        ["c", []],
      ]),
    );
    expect(r.total).toBe(64);
    expect(r.nodes).toEqual([{ node: "y/then_branch/t", opType: "MatMul", flops: 64 }]);
    expect(r.upperBounds).toEqual(["y"]);
    expect(r.notCounted).toEqual([{ opType: "Identity", domain: "", nodes: 1 }]);
  });

  it("Loop multiplies its body by a constant trip count; without one it says what is missing", () => {
    // Body: h' = MatMul(h [1, 8], W [8, 8]) → 2 × 8 × 8 = 128 per iteration; trip count M = 5 → 640.
    const loop = (trip: string) =>
      node("Loop", [trip, "", "h0"], ["hN"], {
        body: {
          kind: "graph",
          graphs: [
            body([node("MatMul", ["h", "W"], ["h2"])], {
              inputs: [
                ["i", []],
                ["cond", []],
                ["h", [1, 8]],
              ],
              outputs: [
                ["cond_out", []],
                ["h2", [1, 8]],
              ],
              inits: [floatInit("W", [8, 8])],
            }),
          ],
        },
      });
    const withTrip = emptyGraph({
      initializers: [{ name: "M", dataType: "int64", dims: [], external: false, storedBytes: 8, scalar: 5 }],
      nodes: [loop("M")],
    });
    expect(
      countFlops(
        withTrip,
        new Map([
          ["h0", [1, 8]],
          ["hN", [1, 8]],
        ]),
      ).total,
    ).toBe(640);
    const dynamicTrip = countFlops(
      emptyGraph({ nodes: [loop("steps")] }),
      new Map([
        ["h0", [1, 8]],
        ["steps", []],
      ]),
    );
    expect(dynamicTrip.total).toBe(0);
    expect(dynamicTrip.unresolved).toEqual([{ node: "hN", opType: "Loop", missing: "steps (trip count)" }]);
  });

  it("Scan multiplies its body by the scanned length, each element its input less the scan axis", () => {
    // xs [1, 6, 8] scanned on axis 1 → 6 iterations of x_t [1, 8]; body MatMul(x_t, W [8, 4]) → [1, 4]: 2 × 4 × 8 = 64.
    // 6 × 64 = 384.
    const g = emptyGraph({
      nodes: [
        node("Scan", ["s0", "xs"], ["sN", "ys"], {
          num_scan_inputs: int(1),
          scan_input_axes: ints([1]),
          body: {
            kind: "graph",
            graphs: [
              body([node("Identity", ["s"], ["s2"]), node("MatMul", ["x_t", "W"], ["y_t"])], {
                inputs: [
                  ["s", [1]],
                  ["x_t", [1, 8]],
                ],
                outputs: [
                  ["s2", [1]],
                  ["y_t", [1, 4]],
                ],
                inits: [floatInit("W", [8, 4])],
              }),
            ],
          },
        }),
      ],
    });
    expect(
      countFlops(
        g,
        new Map([
          ["s0", [1]],
          ["xs", [1, 6, 8]],
        ]),
      ).total,
    ).toBe(384);
  });
});
