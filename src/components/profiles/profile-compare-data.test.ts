import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareProfiles, describeRatio, type ComparedProfile } from "./profile-compare-data";
import type { ProfileCellData } from "./profile-grid-data";

const cell = (threads: number, batch: number, meanMs: number): ProfileCellData => ({
  threads,
  batch,
  meanMs,
  p50Ms: meanMs,
  p90Ms: meanMs,
  p99Ms: meanMs,
  stddevMs: 0,
  iterations: 10,
});

const profile = (over: Partial<ComparedProfile>): ComparedProfile => ({
  id: "a",
  label: "A",
  model: { name: "tiny-cnn", version: 1 },
  hostName: "host-a",
  hardwareClass: "EPYC · 1S × 2C × 1T",
  runtimeSignature: "onnxruntime 1.30.0",
  cores: 2,
  dimensions: {},
  stoppingRule: { kind: "adaptive" },
  perturbed: false,
  perturbedRatePerS: null,
  status: "complete",
  threads: [1, 2],
  batches: [1, 2],
  cells: [],
  ...over,
});

describe("comparing two profiles", () => {
  // A: L(1,1)=2, L(1,2)=4, L(2,1)=1.  B: L(1,1)=1, L(1,2)=8, L(2,2)=3.
  const a = profile({ cells: [cell(1, 1, 2), cell(1, 2, 4), cell(2, 1, 1)] });
  const b = profile({
    id: "b",
    hostName: "host-b",
    model: { name: "tiny-cnn", version: 2 },
    cells: [cell(1, 1, 1), cell(1, 2, 8), cell(2, 2, 3)],
  });
  const c = compareProfiles(a, b);

  it("ratio per common cell = L_B / L_A: t=1 b=1 → 1 / 2 = 0.5, t=1 b=2 → 8 / 4 = 2", () => {
    expect(c.cells).toEqual([
      { threads: 1, batch: 1, aMs: 2, bMs: 1, ratio: 0.5 },
      { threads: 1, batch: 2, aMs: 4, bMs: 8, ratio: 2 },
    ]);
  });

  it("the summary is the geometric mean: √(0.5 · 2) = 1, so ×2 and ÷2 cancel; one cell each way", () => {
    expect(c.summary!.geometricMean).toBeCloseTo(1, 12);
    expect(c.summary).toMatchObject({ min: 0.5, max: 2, bFaster: 1, aFaster: 1 });
  });

  it("cells in only one profile are listed, not compared", () => {
    expect(c.onlyA).toEqual([{ threads: 2, batch: 1 }]);
    expect(c.onlyB).toEqual([{ threads: 2, batch: 2 }]);
  });

  it("conditions name what differs (host, version) and what is the same", () => {
    const differs = c.conditions.filter((x) => x.differs).map((x) => x.field);
    expect(differs).toEqual(["model version", "host"]);
    expect(c.conditions.find((x) => x.field === "input dimensions")).toMatchObject({
      a: "batch only",
      b: "batch only",
      differs: false,
    });
  });

  it("the stopping rule reads as the form's preset names", () => {
    const paper = compareProfiles(profile({}), profile({ stoppingRule: { kind: "fixed" } }));
    expect(paper.conditions.find((x) => x.field === "stopping rule")).toEqual({
      field: "stopping rule",
      a: "adaptive",
      b: "paper (10 + 100)",
      differs: true,
    });
  });

  it("no common cell → no summary (never NaN)", () => {
    const none = compareProfiles(profile({ cells: [cell(1, 1, 2)] }), profile({ cells: [cell(2, 2, 2)] }));
    expect(none.summary).toBeNull();
    expect(none.cells).toEqual([]);
  });

  it("property: swapping A and B inverts every ratio and the geometric mean", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.01, max: 1e4, noNaN: true }), { minLength: 8, maxLength: 8 }), (l) => {
        const pa = profile({ cells: [cell(1, 1, l[0]!), cell(1, 2, l[1]!), cell(2, 1, l[2]!), cell(2, 2, l[3]!)] });
        const pb = profile({ cells: [cell(1, 1, l[4]!), cell(1, 2, l[5]!), cell(2, 1, l[6]!), cell(2, 2, l[7]!)] });
        const ab = compareProfiles(pa, pb);
        const ba = compareProfiles(pb, pa);
        ab.cells.forEach((x, i) => expect(x.ratio * ba.cells[i]!.ratio).toBeCloseTo(1, 9));
        expect(ab.summary!.geometricMean * ba.summary!.geometricMean).toBeCloseTo(1, 9);
      }),
      { numRuns: 100 },
    );
  });
});

describe("reading a ratio", () => {
  it("above 1 is slower, below 1 faster by the inverse: 0.625 → 1 / 0.625 = 1.6× faster", () => {
    expect(describeRatio(1.25)).toBe("1.25× slower");
    expect(describeRatio(0.625)).toBe("1.6× faster");
    expect(describeRatio(1.0001)).toBe("the same");
    expect(describeRatio(Number.NaN)).toBe("—");
  });
});
