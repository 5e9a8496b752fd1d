import { describe, expect, it } from "vitest";
import { validateProfile } from "../profile/profile";
import { P1 } from "./fixtures/digest-profiles";
import { naiveExactFillTable, naiveOptimum, naiveSteps } from "./naive-oracle";

const table = naiveExactFillTable(validateProfile(P1), 4, 4);

describe("naive oracle on digest P1", () => {
  it("opt₌[2][2] = min(L[2][2] = 11, max(L[1][1], L[1][1]) = 10) = 10", () => {
    expect(table.latency(2, 2)).toBe(10);
  });
  it("opt₌[4][2] = 6: ⟨4,2⟩ = 7.2; splits of 4 threads over two b = 1: max(10, 4.8), max(6, 6), max(4.8, 10)", () => {
    expect(table.latency(4, 2)).toBe(6);
  });
  it("Packrat DP P1 T=4, B=3: 10 ({⟨1,1⟩, ⟨3,2⟩} = max(10, 8.5))", () => {
    expect(table.latency(4, 3)).toBe(10);
  });
  it("opt₌[1][3] does not exist: one thread means one instance, and b = 3 was not profiled", () => {
    expect(table.latency(1, 3)).toBeUndefined();
  });
  it("answers undefined outside the table instead of Infinity", () => {
    expect(table.latency(5, 1)).toBeUndefined();
    expect(table.latency(1, 0)).toBeUndefined();
  });
  it("Packrat DP P1 T=3, B=4 → 16 in both modes (t = 1, 2 give 37 and 19 at best)", () => {
    expect(naiveOptimum(table, 3, 4, true)).toBe(16);
    expect(naiveOptimum(table, 3, 4, false)).toBe(16);
  });
  it("counts Σ_t (t−1) · Σ_b (b−1) inner steps: (0+1+2+3)·(0+1+2+3) = 36", () => {
    expect(table.steps).toBe(36);
    expect(naiveSteps(4, 4)).toBe(36);
  });
  it("T = 64, B = 1024 needs 2016 · 523776 ≈ 1.06e9 steps, T = 64, B = 256 needs 2016 · 32640 ≈ 6.6e7", () => {
    expect(naiveSteps(64, 1024)).toBe(2016 * 523776);
    expect(naiveSteps(64, 256)).toBe(2016 * 32640);
  });
});
