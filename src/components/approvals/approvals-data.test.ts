import { describe, expect, it } from "vitest";
import {
  canApprove,
  diffRows,
  expiresIn,
  gapText,
  outcomeText,
  phaseText,
  planShape,
  switchCost,
  type DecidedProposal,
} from "./approvals-data";

// Generation 1 on an 8-core budget: one 8-thread instance, B = 1.
const running = planShape({
  instances: [{ count: 1, threads: 8, batch: 1, cpus: ["0-7"] }],
  batchSize: 1,
  batchTimeoutMs: 0,
})!;
// The optimizer's plan for B = 8: two 4-thread instances of b = 4.
const proposed = planShape({
  instances: [{ count: 2, threads: 4, batch: 4, cpus: ["0-3", "4-7"] }],
  batchSize: 8,
  batchTimeoutMs: 2,
})!;

describe("plan shape", () => {
  it("counts instances and threads, and lists per-instance CPUs", () => {
    expect(proposed).toMatchObject({
      instances: 2,
      threadCounts: [4],
      totalThreads: 8,
      cpuLists: ["0-3", "4-7"],
      batchSize: 8,
      timeoutMs: 2,
    });
  });

  it("B defaults to Σ count·b when the plan leaves it out", () => {
    // 3 × b = 2 + 1 × b = 1 = 7.
    expect(
      planShape({
        instances: [
          { count: 3, threads: 1, batch: 2 },
          { count: 1, threads: 2, batch: 1 },
        ],
      })!.batchSize,
    ).toBe(7);
  });

  it("is null for anything that is not a serving plan", () => {
    expect(planShape({ instances: [] })).toBeNull();
    expect(planShape("nope")).toBeNull();
  });
});

describe("diff against what runs", () => {
  it("marks what changes and gives the predictions and ρ for the proposal only", () => {
    const rows = diffRows(running, proposed, {
      predictedLatencyMs: 10,
      predictedThroughputPerS: 800,
      utilizationAtCurrentRate: 0.125,
    });
    const by = Object.fromEntries(rows.map((r) => [r.label, r]));
    expect(by["Instances ⟨i, t, b⟩"]).toEqual({
      label: "Instances ⟨i, t, b⟩",
      running: "1 × ⟨8 threads, b = 1⟩",
      proposed: "2 × ⟨4 threads, b = 4⟩",
      changed: true,
    });
    expect(by["Threads in all"]!.changed).toBe(false); // 8 either way
    expect(by["CPUs per instance"]).toMatchObject({ running: "0-7", proposed: "0-3 | 4-7", changed: true });
    expect(by["Batch size B"]).toMatchObject({ running: "1 sample", proposed: "8 samples", changed: true });
    expect(by["Batch timeout"]).toMatchObject({ running: "0 ms", proposed: "2 ms" });
    expect(by["Predicted batch latency"]!.proposed).toBe("10 ms");
    expect(by["Predicted throughput"]!.proposed).toBe("800 samples/s");
    expect(by["Utilization at the current rate"]!.proposed).toBe("ρ = 0.125");
  });

  it("says when the proposal would overload the host at the current rate", () => {
    const rows = diffRows(running, proposed, {
      predictedLatencyMs: 10,
      predictedThroughputPerS: 100,
      utilizationAtCurrentRate: 1.5,
    });
    expect(rows.at(-1)!.proposed).toBe("ρ = 1.5 (overloaded)");
  });
});

describe("expected switch cost (the agent's rule)", () => {
  it("a thread change is an active-passive switch", () => {
    const cost = switchCost(running, proposed);
    expect(cost.kind).toBe("active-passive");
    expect(cost.text).toContain("8 → 4");
    expect(cost.text).toContain("2 new instances");
  });

  it("a different instance count on the same threads is a scale: only the new instances start", () => {
    const two = planShape({ instances: [{ count: 2, threads: 2, batch: 1, cpus: ["0-1", "2-3"] }], batchSize: 2 })!;
    const four = planShape({
      instances: [{ count: 4, threads: 2, batch: 1, cpus: ["0-1", "2-3", "4-5", "6-7"] }],
      batchSize: 4,
    })!;
    const cost = switchCost(two, four);
    expect(cost.kind).toBe("scale");
    expect(cost.text).toContain("2 instances start and 0 stop (2 → 4), the 2 that stay");
  });

  it("only B or the timeout changing is batch-only; nothing changing says so", () => {
    const sameInstancesNewB = planShape({
      instances: [{ count: 1, threads: 8, batch: 1, cpus: ["0-7"] }],
      batchSize: 4,
      batchTimeoutMs: 0,
    })!;
    expect(switchCost(running, sameInstancesNewB).kind).toBe("batch-only");
    expect(switchCost(running, running).kind).toBe("none");
    expect(switchCost(null, proposed).kind).toBe("unknown");
  });
});

describe("outcomes", () => {
  const base: DecidedProposal = {
    state: "applied",
    appliedGeneration: 2,
    baseGeneration: 1,
    failureReason: null,
    decidedBy: "sre@example.com",
    decisionComment: null,
    applyReport: null,
  };

  it("applied names the generation and how it switched; the phase timings read in order", () => {
    const report = {
      kind: "active-passive",
      phasesMs: { total: 470, start: 120, warm: 340.25, switch: 0.5, drain: 5, stop: 4.25 },
    };
    expect(outcomeText({ ...base, applyReport: report })).toBe("applied as generation 2 (active-passive)");
    expect(phaseText(report)).toBe(
      "start 120 ms · warm 340 ms · switch 0.5 ms · drain 5 ms · stop 4.25 ms · total 470 ms",
    );
    expect(phaseText(null)).toBeNull();
  });

  it("failed gives the agent's reason; rejected the comment; expired the base generation", () => {
    expect(outcomeText({ ...base, state: "failed", failureReason: "generation 2: warm-up failed" })).toContain(
      "failed: generation 2: warm-up failed",
    );
    expect(outcomeText({ ...base, state: "rejected", decisionComment: "not during the sale" })).toBe(
      "rejected by sre@example.com: not during the sale",
    );
    expect(outcomeText({ ...base, state: "expired" })).toContain("generation 1");
    expect(outcomeText({ ...base, state: "withdrawn", decisionComment: "stable B back to 8" })).toBe(
      "withdrawn by the agent's estimator: stable B back to 8",
    );
    expect(outcomeText({ ...base, state: "applying" })).toContain("generation 2");
  });

  it("measured vs predicted: +23% is flagged, an unmeasured one says so", () => {
    // 12.3 / 10 − 1 = 0.23 > 0.15.
    expect(gapText(12.3, 10, 0.23, true)).toEqual({
      text: "measured 12.3 ms vs predicted 10 ms (+23%): worse than predicted by more than 15%",
      flag: true,
    });
    expect(gapText(9.5, 10, -0.05, false).text).toBe("measured 9.5 ms vs predicted 10 ms (-5%)");
    expect(gapText(null, 10, null, false)).toEqual({ text: "predicted 10 ms; not measured yet", flag: false });
  });
});

describe("who may approve", () => {
  it("an SRE not their own, an admin always, nobody else", () => {
    expect(canApprove({ email: "sre@example.com", role: "sre" }, "ml@example.com")).toBe(true);
    expect(canApprove({ email: "sre@example.com", role: "sre" }, "sre@example.com")).toBe(false);
    expect(canApprove({ email: "admin@example.com", role: "admin" }, "admin@example.com")).toBe(true);
    expect(canApprove({ email: "manager@example.com", role: "manager" }, "ml@example.com")).toBe(false);
  });

  it("counts down to expiry", () => {
    const now = Date.UTC(2025, 0, 1);
    expect(expiresIn(new Date(now + 23.5 * 3_600_000), now)).toBe("in 23 h");
    expect(expiresIn(new Date(now + 90_000), now)).toBe("in 1 min");
    expect(expiresIn(new Date(now - 1), now)).toBe("expired");
  });
});
