import { describe, expect, it } from "vitest";
import type { ProposalTrial } from "@/contracts/plan-trial";
import { roleText, trialRows, trialStatus } from "./plan-trial-data";

const trial: ProposalTrial = {
  state: "done",
  jobId: "j",
  estimateMs: 12_400,
  stoppedEarly: false,
  costS: 14.2,
  error: null,
  replaced: { key: "⟨2,1,4⟩", items: [{ count: 2, threads: 1, batch: 4 }] },
  model: {
    contention: { intercept: 1.1, slope: 0.3, points: 3, distinctX: 2 },
    overhead: { intercept: 0.5, slope: 0.5, points: 3, distinctX: 2 },
    observations: 3,
    rmsRelativeError: 0,
  },
  verdict: {
    proposedKey: "⟨1,2,8⟩",
    predictedKey: "⟨2,1,4⟩",
    measuredBestKey: "⟨1,2,8⟩",
    contradicted: true,
    differenceMs: { mean: 2, lower: 1, upper: 3 },
    why: "the trial contradicts the prediction",
  },
  candidates: [
    {
      key: "⟨2,1,4⟩",
      groups: [{ count: 2, threads: 1, batch: 4 }],
      roles: ["rank"],
      rank: 1,
      predictedMs: 20,
      correctedMs: 26,
      measured: { meanMs: 25, lowerMs: 24, upperMs: 26, rounds: 4, instanceMs: 24, overheadMs: 1 },
      error: null,
    },
    {
      key: "⟨1,2,8⟩",
      groups: [{ count: 1, threads: 2, batch: 8 }],
      roles: ["rank", "all-threads"],
      rank: 2,
      predictedMs: 22,
      correctedMs: 24.7,
      measured: { meanMs: 23, lowerMs: 22.5, upperMs: 23.5, rounds: 4, instanceMs: 22.6, overheadMs: 0.4 },
      error: null,
    },
    {
      key: "⟨1,1,8⟩",
      groups: [{ count: 1, threads: 1, batch: 8 }],
      roles: ["running"],
      rank: null,
      predictedMs: 40,
      correctedMs: 44.5,
      measured: null,
      error: "failed to start: out of memory",
    },
  ],
};

describe("plan trial rows", () => {
  it("puts the prediction beside the measurement and how far apart: (25 − 20) ÷ 20 = +25.0%, (23 − 22) ÷ 22 = +4.5%", () => {
    const rows = trialRows(trial);
    expect(rows.map((r) => [r.key, r.predicted, r.corrected, r.measured, r.gap, r.note])).toEqual([
      ["⟨2,1,4⟩", "20.00 ms", "26.00 ms", "25.00 ms [24.00–26.00]", "+25.0%", ""],
      ["⟨1,2,8⟩", "22.00 ms", "24.70 ms", "23.00 ms [22.50–23.50]", "+4.5%", "proposed"],
      ["⟨1,1,8⟩", "40.00 ms", "44.50 ms", "not measured", "—", "failed to start: out of memory"],
    ]);
    expect(rows[1]!.proposed).toBe(true);
  });
  it("names why each plan was tried and says where the trial stands", () => {
    expect(roleText(trial.candidates[1]!)).toBe("optimizer #2, ⟨1, T, B⟩");
    expect(trialStatus(trial)).toBe("the trial contradicts the prediction (trial took 14.2 s).");
    expect(trialStatus({ ...trial, state: "queued" })).toMatch(/about 13 s once it starts/);
    expect(trialStatus({ ...trial, state: "failed", error: "agent lost twice" })).toMatch(/failed: agent lost twice/);
    expect(
      trialRows({ ...trial, state: "running", candidates: [{ ...trial.candidates[0]!, measured: null }] })[0]!.measured,
    ).toBe("…");
  });
});
