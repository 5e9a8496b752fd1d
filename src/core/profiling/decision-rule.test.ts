import { describe, expect, it } from "vitest";
import { enumeratePlans } from "../optimizer/exhaustive-search";
import { validateProfile } from "../profile/profile";
import { Prng } from "../stats/prng";
import { plansByBatch, planLatencyUnder, settledCells, worstRegrets, type CellInterval } from "./decision-rule";

const cell = (threads: number, batch: number, estimateMs: number, lowerMs: number, upperMs: number): CellInterval => ({
  threads,
  batch,
  estimateMs,
  lowerMs,
  upperMs,
});

describe("decision-aware stopping test", () => {
  // T = 2, B ≤ 2. L[1][1] = 10, L[1][2] = 18, L[2][1] = 6, L[2][2] = 11.
  // B = 1: ⟨2,1⟩ = 6 beats ⟨1,1⟩ = 10. B = 2: 2 × ⟨1,1⟩ (Σt = 2) = 10 beats ⟨2,2⟩ = 11 and ⟨1,2⟩ = 18.
  const context = { cores: 2, maxBatch: 2, tolerance: 0.02 };

  it("settles cells whose interval cannot flip a plan by more than 2%", () => {
    const cells = [cell(1, 1, 10, 9, 11), cell(1, 2, 18, 15, 21), cell(2, 1, 6, 5, 7), cell(2, 2, 11, 10.5, 11.5)];
    // (1,1) up to 11: B = 2's plan becomes 11, tied with ⟨2,2⟩ = 11 → regret 0. Down to 9: only faster.
    // (2,2) down to 10.5: still slower than 10. (1,2) is in no plan and never beats one. (2,1): B = 1 at 7 < 10.
    expect(worstRegrets(cells, context)).toEqual([0, 0, 0, 0]);
    expect(settledCells(cells, context)).toEqual([true, true, true, true]);
  });

  it("keeps refining a cell whose upper end makes another plan better by 10%", () => {
    // (1,1) up to 12: B = 2's plan takes 12 where ⟨2,2⟩ takes 11: regret 1 / 10 = 10% of the plan's latency.
    const cells = [cell(1, 1, 10, 9, 12), cell(1, 2, 18, 15, 21), cell(2, 1, 6, 5, 7), cell(2, 2, 11, 10.5, 11.5)];
    const regrets = worstRegrets(cells, context);
    expect(regrets[0]).toBeCloseTo(0.1, 12);
    expect(settledCells(cells, context)).toEqual([false, true, true, true]);
  });

  it("a cell with no interval yet is never settled", () => {
    const cells = [cell(1, 1, 10, -Infinity, Infinity), cell(2, 1, 6, 5.9, 6.1)];
    expect(worstRegrets(cells, { cores: 2, maxBatch: 1, tolerance: 0.02 })[0]).toBe(Infinity);
  });

  it("agrees with brute force over every plan on random profiles", () => {
    // Brute force: each cell moved to each end of its interval; for every B the optimizer's plan on the estimates,
    // re-timed under the moved profile, against the fastest of ALL plans (exhaustive enumeration) of that profile.
    const random = new Prng(29);
    for (let trial = 0; trial < 40; trial++) {
      const cores = 3;
      const maxBatch = 6;
      const cells: CellInterval[] = [];
      for (const t of [1, 2, 3]) {
        for (const b of [1, 2, 4]) {
          const estimate = (2 + b * (1 + random.uniform())) / t ** (0.5 + 0.5 * random.uniform());
          const spread = estimate * 0.1 * random.uniform();
          cells.push(cell(t, b, estimate, estimate - spread, estimate + spread));
        }
      }
      const base = cells.map((c) => ({ threads: c.threads, batch: c.batch, latencyMs: c.estimateMs }));
      const chosen = plansByBatch(base, cores, maxBatch);
      const expected = cells.map((c, index) => {
        let worst = 0;
        for (const v of [c.lowerMs, c.upperMs]) {
          const moved = validateProfile(base.map((x, i) => (i === index ? { ...x, latencyMs: v } : x)));
          const at = (t: number, b: number) => moved.find((x) => x.threads === t && x.batch === b)!.latencyMs;
          for (let B = 1; B <= maxBatch; B++) {
            const plans = enumeratePlans(moved, cores, B, false);
            const plan = chosen[B]!;
            const best = Math.min(...plans.map((p) => p.latencyMs));
            worst = Math.max(worst, (planLatencyUnder(plan.cells, at) - best) / plan.latencyMs);
          }
        }
        return worst;
      });
      const actual = worstRegrets(cells, { cores, maxBatch, tolerance: 0.02 });
      actual.forEach((r, i) => expect(r).toBeCloseTo(expected[i]!, 10));
    }
  });
});
