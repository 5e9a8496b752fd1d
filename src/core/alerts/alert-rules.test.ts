import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AlertRuleError,
  evaluateAlertRules,
  type AlertSnapshot,
  type AlertThresholds,
  type DeploymentSnapshot,
} from "./alert-rules";

const thresholds: AlertThresholds = {
  offlineAfterMs: 15_000,
  latencyGap: 0.15,
  rejectionsPerS: 1,
  minRequests: 50,
  crashLoopRestarts: 3,
};
const NOW = 1_000_000;

const agent = {
  id: "a1",
  label: "host-1",
  lastHeartbeatMs: NOW - 1_000,
  registeredMs: NOW - 3_600_000,
  servingRestartsInWindow: 0,
};
function deployment(over: Partial<DeploymentSnapshot> = {}): DeploymentSnapshot {
  return {
    id: "d1",
    label: "resnet50 v1 on host-1",
    agentId: "a1",
    state: "serving",
    failureReason: null,
    crashedInstances: 0,
    batchSize: 1,
    slo: { deadlineMs: 50, quantile: 0.99 },
    window: { windowMs: 300_000, coveredMs: 300_000, completed: 0, rejected: 0, withinSlo: 0, meanComputeMs: null },
    running: null,
    autoRevert: null,
    ...over,
  };
}
const snap = (over: Partial<AlertSnapshot> = {}): AlertSnapshot => ({
  nowMs: NOW,
  agents: [agent],
  deployments: [deployment()],
  failedProposals: [],
  ...over,
});
const rules = (s: AlertSnapshot) => evaluateAlertRules(s, thresholds).conditions.map((c) => c.rule);

describe("agent offline", () => {
  it("fires past AGENT_OFFLINE_AFTER_MS without a heartbeat (16 s > 15 s), not at 14 s", () => {
    expect(rules(snap({ agents: [{ ...agent, lastHeartbeatMs: NOW - 16_000 }] }))).toEqual(["agent_offline"]);
    expect(rules(snap({ agents: [{ ...agent, lastHeartbeatMs: NOW - 14_000 }] }))).toEqual([]);
  });

  it("an agent that never sent a heartbeat counts from its registration", () => {
    expect(rules(snap({ agents: [{ ...agent, lastHeartbeatMs: null, registeredMs: NOW - 20_000 }] }))).toEqual([
      "agent_offline",
    ]);
    expect(rules(snap({ agents: [{ ...agent, lastHeartbeatMs: null, registeredMs: NOW - 2_000 }] }))).toEqual([]);
  });

  it("keys the alert by rule and object, so it stays one alert while it holds", () => {
    const [c] = evaluateAlertRules(
      snap({ agents: [{ ...agent, lastHeartbeatMs: NOW - 60_000 }] }),
      thresholds,
    ).conditions;
    expect(c).toMatchObject({
      key: "agent_offline:agent:a1",
      severity: "critical",
      object: { type: "agent", id: "a1", label: "host-1" },
    });
  });

  it("does not judge an offline agent's reported figures: those keys are unjudged (kept as they are), not cleared", () => {
    const busy = deployment({
      window: {
        windowMs: 300_000,
        coveredMs: 300_000,
        completed: 100,
        rejected: 3000,
        withinSlo: 0,
        meanComputeMs: 3.5,
      },
    });
    const result = evaluateAlertRules(
      snap({ agents: [{ ...agent, lastHeartbeatMs: NOW - 60_000 }], deployments: [busy] }),
      thresholds,
    );
    expect(result.conditions.map((c) => c.rule)).toEqual(["agent_offline"]);
    expect(result.unjudged).toEqual(
      ["instance_crashed", "latency_above_predicted", "queue_rejections", "slo_breached", "utilization_above_safe"].map(
        (r) => `${r}:deployment:d1`,
      ),
    );
    // Online, the same figures are judged (and fire).
    const online = evaluateAlertRules(snap({ deployments: [busy] }), thresholds);
    expect(online.unjudged).toEqual([]);
    expect(online.conditions.map((c) => c.rule)).toEqual(["queue_rejections", "slo_breached"]);
  });
});

describe("crashes and failures", () => {
  it("3 serving-process restarts in the window are a crash loop; 2 are not", () => {
    expect(rules(snap({ agents: [{ ...agent, servingRestartsInWindow: 3 }] }))).toEqual(["serving_crash_loop"]);
    expect(rules(snap({ agents: [{ ...agent, servingRestartsInWindow: 2 }] }))).toEqual([]);
  });

  it("a failed model and crashed instances", () => {
    expect(
      rules(snap({ deployments: [deployment({ state: "failed", failureReason: "3 instance crashes within 60 s" })] })),
    ).toEqual(["model_failed"]);
    expect(rules(snap({ deployments: [deployment({ crashedInstances: 1 })] }))).toEqual(["instance_crashed"]);
  });

  it("an auto-revert and a failed proposal", () => {
    const c = evaluateAlertRules(
      snap({
        deployments: [
          deployment({ autoRevert: { generation: 4, failedGeneration: 3, reason: "generation 3: cannot pin" } }),
        ],
        failedProposals: [
          { id: "p1", deploymentLabel: "resnet50 v1 on host-1", failureReason: "cannot pin", atMs: NOW - 5_000 },
        ],
      }),
      thresholds,
    ).conditions;
    expect(c.map((x) => x.key)).toEqual(["auto_reverted:deployment:d1", "proposal_failed:proposal:p1"]);
    expect(c[0]!.message).toBe("generation 3 failed and was reverted (now generation 4): generation 3: cannot pin");
  });
});

describe("latency worse than predicted", () => {
  it("fires when measured/predicted − 1 exceeds the gap: 2.6 / 2.2 − 1 = 18.2% > 15%; 2.5 / 2.2 − 1 = 13.6% does not", () => {
    const run = (measured: number) =>
      deployment({ running: { proposalId: "p1", predictedLatencyMs: 2.2, measuredBatchLatencyMs: measured } });
    expect(rules(snap({ deployments: [run(2.6)] }))).toEqual(["latency_above_predicted"]);
    expect(rules(snap({ deployments: [run(2.5)] }))).toEqual([]);
  });
});

describe("utilization above the SLO's safe utilization (F-14)", () => {
  // TV-024 Step 1 (Napkin Math 13.3): S = 3.5 ms, p99 budget 50 ms, m = ln 100 = 4.60517 →
  // ρ_max = 1 − 4.60517 × 3.5 / 50 = 0.67764. At B = 1, ρ = λ·S: λ = 200/s → 0.70 > ρ_max; λ = 190/s → 0.665 < ρ_max.
  const at = (ratePerS: number, batchSize = 1) =>
    deployment({
      batchSize,
      // 5 minutes covered; all within the SLO so only ρ can fire.
      window: {
        windowMs: 300_000,
        coveredMs: 300_000,
        completed: ratePerS * 300,
        rejected: 0,
        withinSlo: ratePerS * 300,
        meanComputeMs: 3.5,
      },
    });

  it("TV-024 Step 1: 200/s at S = 3.5 ms (ρ = 0.70) is above ρ_max = 0.678; 190/s (ρ = 0.665) is not", () => {
    const [c] = evaluateAlertRules(snap({ deployments: [at(200)] }), thresholds).conditions;
    expect(c!.rule).toBe("utilization_above_safe");
    expect(c!.details.rho).toBeCloseTo(0.7, 10);
    expect(c!.details.rhoMax).toBeCloseTo(1 - (Math.log(100) * 3.5) / 50, 10);
    expect(rules(snap({ deployments: [at(190)] }))).toEqual([]);
  });

  it("a batch of B shares the batch latency: 200/s at B = 2 is ρ = 0.35, safe", () => {
    expect(rules(snap({ deployments: [at(200, 2)] }))).toEqual([]);
  });

  it("when even an idle server misses the SLO, any traffic fires, saying so", () => {
    const slow = deployment({
      window: {
        windowMs: 300_000,
        coveredMs: 300_000,
        completed: 3000,
        rejected: 0,
        withinSlo: 3000,
        meanComputeMs: 20,
      },
    });
    const [c] = evaluateAlertRules(snap({ deployments: [slow] }), thresholds).conditions;
    expect(c!.message).toMatch(/^no utilization is safe/);
  });

  it("ρ = λ·S/B and the rule fires exactly when ρ > ρ_max (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0.1, max: 9, noNaN: true }),
        fc.constantFrom(1, 2, 4, 8),
        (rate, s, b) => {
          const d = deployment({
            batchSize: b,
            window: {
              windowMs: 60_000,
              coveredMs: 60_000,
              completed: rate * 60,
              rejected: 0,
              withinSlo: rate * 60,
              meanComputeMs: s,
            },
          });
          const rho = (rate * s) / (1000 * b);
          const rhoMax = Math.max(0, 1 - (Math.log(100) * s) / 50);
          const fired = rules(snap({ deployments: [d] })).includes("utilization_above_safe");
          // Away from the boundary (floating point), the verdict must match the restated formula.
          if (Math.abs(rho - rhoMax) > 1e-9) expect(fired).toBe(rho > rhoMax);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("SLO and rejections over the window", () => {
  it("98.0% within 50 ms over 1000 requests breaches p99; 99.0% does not", () => {
    const w = (within: number) =>
      deployment({
        window: {
          windowMs: 300_000,
          coveredMs: 300_000,
          completed: 1000,
          rejected: 0,
          withinSlo: within,
          meanComputeMs: 0.5,
        },
      });
    const [c] = evaluateAlertRules(snap({ deployments: [w(980)] }), thresholds).conditions;
    expect(c).toMatchObject({ rule: "slo_breached", severity: "critical" });
    expect(c!.message).toBe("p99 ≤ 50 ms breached: 98.0% of 1000 requests within it over the last 5 min (needs 99.0%)");
    expect(rules(snap({ deployments: [w(990)] }))).toEqual([]);
  });

  it("too few requests (49 < 50) do not judge the SLO", () => {
    const d = deployment({
      window: { windowMs: 300_000, coveredMs: 300_000, completed: 49, rejected: 0, withinSlo: 0, meanComputeMs: 0.5 },
    });
    expect(rules(snap({ deployments: [d] }))).toEqual([]);
  });

  it("rejections: 600 in 5 min is 2/s > 1/s; 300 is exactly 1/s and does not fire", () => {
    const r = (rejected: number) =>
      deployment({
        slo: null,
        window: { windowMs: 300_000, coveredMs: 300_000, completed: 0, rejected, withinSlo: 0, meanComputeMs: null },
      });
    expect(rules(snap({ deployments: [r(600)] }))).toEqual(["queue_rejections"]);
    expect(rules(snap({ deployments: [r(300)] }))).toEqual([]);
  });
});

describe("thresholds", () => {
  it("refuses a zero offline time and a fractional minRequests, naming them", () => {
    expect(() => evaluateAlertRules(snap(), { ...thresholds, offlineAfterMs: 0 })).toThrow(AlertRuleError);
    expect(() => evaluateAlertRules(snap(), { ...thresholds, offlineAfterMs: 0 })).toThrow(/offlineAfterMs/);
    expect(() => evaluateAlertRules(snap(), { ...thresholds, minRequests: 1.5 })).toThrow(/minRequests/);
  });
});
