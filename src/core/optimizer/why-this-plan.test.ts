import { describe, expect, it } from "vitest";
import type { ProfileCell } from "@/core/profile/profile";
import { optimize } from "./optimize";
import type { OptimizedPlan } from "./types";
import { whyThisPlan } from "./why-this-plan";

// Each case runs the real optimizer on a small profile, so the sentence explains the plan the page shows.
function planFor(cells: ProfileCell[], cores: number, batch: number): OptimizedPlan {
  const result = optimize(cells, { cores, batch });
  if (result.kind !== "plan") throw new Error(result.reason);
  return result;
}
const grid = (latency: (threads: number, batch: number) => number, threads: number[], batches: number[]) =>
  threads.flatMap((t) => batches.map((b) => ({ threads: t, batch: b, latencyMs: latency(t, b) })));

describe("whyThisPlan", () => {
  it("two 1-thread instances (threads scale badly): names them, cites the 1 → 2 gain, never 'one wide instance'", () => {
    // L[1][1] = 10, L[2][1] = 9, L[1][2] = 20, L[2][2] = 18 ms; T = 2, B = 2.
    // ⟨2, 1, 1⟩ takes max(10, 10) = 10 ms; ⟨1, 2, 2⟩ takes 18 ms; so two one-thread instances win.
    const cells = [
      { threads: 1, batch: 1, latencyMs: 10 },
      { threads: 2, batch: 1, latencyMs: 9 },
      { threads: 1, batch: 2, latencyMs: 20 },
      { threads: 2, batch: 2, latencyMs: 18 },
    ];
    const plan = planFor(cells, 2, 2);
    expect(plan.instances).toEqual([{ count: 2, threads: 1, batch: 1, latencyMs: 10 }]);
    const text = whyThisPlan(plan, cells);
    // At b = 1: 10 / 9 = 1.11× from 1 to 2 threads.
    expect(text).toBe(
      "2 instances (2 × 1 thread): at b = 1, going from 1 to 2 threads (2.00× the cores) is only 1.11× faster (10.0 ms → 9.00 ms), so the cores do more as smaller instances sharing the batch; predicted 10.0 ms for a batch of 2, against 18.0 ms with all threads in one instance and 10.0 ms with one thread per instance",
    );
    expect(text).not.toMatch(/one wide instance|one instance with/);
  });

  it("one instance with all threads (threads scale well): cites the last doubling, and both baselines", () => {
    // L[t][b] = 40·b / t (perfect scaling) on T = 4, B = 4: every split ties at 40 ms, the simplest (one instance) wins;
    // from 2 to 4 threads at b = 4: 80 → 40 ms = 2×.
    const cells = grid((t, b) => (40 * b) / t, [1, 2, 4], [1, 2, 4]);
    const plan = planFor(cells, 4, 4);
    expect(plan.instances.reduce((s, g) => s + g.count, 0)).toBe(1);
    expect(whyThisPlan(plan, cells)).toBe(
      "one instance with all 4 threads: at b = 4, going from 2 to 4 threads (2.00× the cores) is 2.00× faster (80.0 ms → 40.0 ms), so splitting the cores into more instances does not pay; predicted 40.0 ms for a batch of 4, against 40.0 ms with all threads in one instance and 40.0 ms with one thread per instance",
    );
  });

  it("on 300 random profiles the sentence matches the plan's shape: every group named, 'one instance' iff one", () => {
    // A fixed linear congruential generator: the same profiles every run.
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let mixed = 0;
    for (let run = 0; run < 300; run++) {
      const cores = 2 + Math.floor(random() * 3); // T = 2..4
      const batch = 1 + Math.floor(random() * 6); // B = 1..6
      // Latency grows with b and falls with t at a random efficiency, plus a random per-thread overhead.
      const efficiency = 0.3 + random() * 0.7;
      const overhead = random() * 3;
      const cells = grid(
        (t, b) => (10 * b) / (1 + (t - 1) * efficiency) + overhead * t + random(),
        [1, 2, 3, 4].filter((t) => t <= cores),
        [1, 2, 3, 4, 5, 6],
      );
      const plan = planFor(cells, cores, batch);
      const text = whyThisPlan(plan, cells);
      const n = plan.instances.reduce((s, g) => s + g.count, 0);
      if (new Set(plan.instances.map((g) => g.threads)).size > 1) mixed++;
      if (n === 1) expect(text).toMatch(/^one instance with /);
      else {
        expect(text.startsWith(`${n} instances (`)).toBe(true);
        expect(text).not.toContain("one instance with");
        for (const g of plan.instances) expect(text).toContain(`${g.count} × ${g.threads} thread`);
      }
      expect(text).toContain(
        `predicted ${plan.latencyMs >= 100 ? plan.latencyMs.toFixed(0) : plan.latencyMs >= 10 ? plan.latencyMs.toFixed(1) : plan.latencyMs.toFixed(2)} ms for a batch of ${batch}`,
      );
    }
    expect(mixed).toBeGreaterThan(0); // the property was checked on plans mixing thread counts too
  });

  it("with a single thread count profiled there is no trade-off to cite, only the prediction", () => {
    const cells = grid((_t, b) => 5 * b, [1], [1, 2]);
    const plan = planFor(cells, 2, 2);
    expect(whyThisPlan(plan, cells)).toBe(
      "2 instances (2 × 1 thread): the profile has no instance wider than 1 thread at b = 1; predicted 5.00 ms for a batch of 2, against 5.00 ms with one thread per instance",
    );
  });

  it("more threads measured slower is said as slower", () => {
    // L[1][1] = 10, L[2][1] = 12: a second thread costs 1.20×.
    const cells = [
      { threads: 1, batch: 1, latencyMs: 10 },
      { threads: 2, batch: 1, latencyMs: 12 },
      { threads: 1, batch: 2, latencyMs: 20 },
      { threads: 2, batch: 2, latencyMs: 24 },
    ];
    expect(whyThisPlan(planFor(cells, 2, 2), cells)).toContain(
      "going from 1 to 2 threads (2.00× the cores) is 1.20× slower (10.0 ms → 12.0 ms)",
    );
  });
});
