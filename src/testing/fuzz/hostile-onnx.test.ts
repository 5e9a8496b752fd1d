import { describe, expect, it } from "vitest";
import { onnx } from "@/lib/onnx/proto";
import { ModelRejectedError } from "@/lib/onnx/validate-model";
import { HOSTILE_ONNX_KINDS, hostileOnnxFile, nestedIfModel, smallValidModel } from "./hostile-onnx";
import { hostileOnnxCases, runHostileOnnx } from "./hostile-onnx-run";

const num = (v: unknown) => (typeof v === "number" ? v : (v as { toNumber(): number }).toNumber());

describe("hostileOnnxFile", () => {
  it("is deterministic per (kind, seed)", () => {
    for (const kind of HOSTILE_ONNX_KINDS) {
      const a = hostileOnnxFile(kind, 11);
      expect(Buffer.from(hostileOnnxFile(kind, 11).bytes).equals(Buffer.from(a.bytes))).toBe(true);
      expect(a.kind).toBe(kind);
      expect(a.variant.length).toBeGreaterThan(5);
    }
  });

  it("cuts truncated files from the valid model: a strict, non-empty prefix of it", () => {
    const valid = Buffer.from(smallValidModel());
    for (let seed = 0; seed < 20; seed++) {
      const { bytes } = hostileOnnxFile("truncated", seed);
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes.length).toBeLessThan(valid.length);
      expect(valid.subarray(0, bytes.length).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it("declares enormous initializers in tiny files: ≥ 10^9 elements, under 1 KiB, at most 16 bytes of data", () => {
    for (let seed = 0; seed < 20; seed++) {
      const { bytes } = hostileOnnxFile("enormous-initializer", seed);
      expect(bytes.length).toBeLessThan(1024);
      const w = onnx.ModelProto.decode(bytes).graph!.initializer![0]!;
      expect((w.dims ?? []).map(num).reduce((a, b) => a * b, 1)).toBeGreaterThanOrEqual(1e9);
      expect((w.rawData?.length ?? 0) + 4 * (w.floatData?.length ?? 0)).toBeLessThanOrEqual(16);
    }
  });

  it("points external data outside the store, in every place a tensor can sit", () => {
    const places = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const file = hostileOnnxFile("external-data-outside-store", seed);
      places.add(file.variant.split(" at ")[0]!);
      expect(Buffer.from(file.bytes).toString("latin1")).toMatch(/location.*(\.\.|\/etc|\/proc|file:)/s);
    }
    expect([...places].sort()).toEqual([
      "Constant node's sparse value",
      "Constant node's value",
      "graph initializer",
      "sparse initializer",
      "subgraph initializer",
    ]);
  });

  it("nests If subgraphs exactly `depth` deep (checked by walking a depth-5 file's then-branches)", () => {
    const graph = onnx.ModelProto.decode(nestedIfModel(5)).graph!;
    let depth = 0;
    let node = graph.node![0];
    while (node?.opType === "If") {
      depth++;
      node = node.attribute!.find((a) => a.name === "then_branch")!.g!.node![0];
    }
    expect(depth).toBe(5);
    expect(node?.opType).toBe("Constant");
    // 20,000 levels: written without recursion, ~190 bytes a level.
    expect(nestedIfModel(20_000).length).toBeGreaterThan(20_000 * 100);
  });

  it("makes operators no runtime has: unknown names, unknown domains, or an opset from the future", () => {
    for (let seed = 0; seed < 30; seed++) {
      const m = onnx.ModelProto.decode(hostileOnnxFile("unsupported-operator", seed).bytes);
      const node = m.graph!.node![0]!;
      const futureOpset = (m.opsetImport ?? []).some((o) => num(o.version) > 100);
      const known = node.opType === "Relu" && !node.domain;
      expect(futureOpset || !known).toBe(true);
    }
  });
});

describe("hostileOnnxCases", () => {
  it("takes distinct variants of each kind, from the first seeds on", () => {
    const cases = hostileOnnxCases(
      2,
      40,
      HOSTILE_ONNX_KINDS.filter((k) => k !== "deeply-nested-subgraphs"),
    );
    expect(cases.length).toBe(10);
    expect(new Set(cases.map((c) => `${c.file.kind}/${c.file.variant}`)).size).toBe(10);
    expect(cases[0]!.seed).toBe(0);
  });
});

describe("runHostileOnnx", () => {
  it("counts refusals by code and reports acceptances, other errors and leftovers as findings", async () => {
    const cases = (["truncated", "random-bytes", "enormous-initializer", "unsupported-operator"] as const).map(
      (kind) => ({ seed: 1, file: hostileOnnxFile(kind, 1) }),
    );
    let stored = 0;
    const outcomes = [
      () => Promise.reject(new ModelRejectedError("TRUNCATED", "the file ends in the middle of the model")),
      () => {
        stored++;
        return Promise.resolve({});
      },
      () => Promise.reject(new Error("boom")),
      () => {
        stored++;
        return Promise.reject(new ModelRejectedError("NOT_ONNX", "not an ONNX model: it decodes, but …"));
      },
    ];
    let i = 0;
    const report = await runHostileOnnx({
      cases,
      upload: () => outcomes[i++]!(),
      snapshot: async () => String(stored),
    });
    expect(report.findings.map((f) => f.problem)).toEqual(["accepted", "other-error", "left-something-behind"]);
    const total = Object.values(report.perKind).reduce((n, c) => n + c.tried, 0);
    expect(total).toBe(4);
    expect(Object.values(report.perKind).reduce((n, c) => n + c.refused, 0)).toBe(2);
  });
});
