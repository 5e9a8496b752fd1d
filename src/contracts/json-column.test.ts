import { describe, expect, it } from "vitest";
import { agentLastHostColumn } from "./agent-columns";
import { sweepPointsColumn } from "./batching-sweep-columns";
import { deploymentLastReportColumn, generationPlanColumn, rollupHistogramsColumn } from "./deployment-columns";
import { planTrialJobColumn, profileProbeResultColumn } from "./job-columns";
import { CorruptJsonColumnError } from "./json-column";
import { loadTestSpecColumn } from "./load-test-columns";
import { profileStoppingRuleColumn, servingDimsColumn } from "./model-columns";
import { autoApprovedPolicyColumn, proposalEvidenceColumn, proposalPlanColumn } from "./proposal-columns";

const corrupt = (read: () => unknown): CorruptJsonColumnError => {
  try {
    read();
  } catch (error) {
    if (error instanceof CorruptJsonColumnError) return error;
    throw error;
  }
  throw new Error("the read did not throw");
};

describe("JSON column readers", () => {
  it("read what their writers store", () => {
    expect(servingDimsColumn.read({ sequence: 128 })).toEqual({ sequence: 128 });
    expect(rollupHistogramsColumn.read({ total: "HISTFAAAA" })).toEqual([{ total: "HISTFAAAA" }]);
    expect(rollupHistogramsColumn.read([{ total: "HISTFAAAA" }, { compute: "HISTFBBBB" }])).toEqual([
      { total: "HISTFAAAA" },
      { compute: "HISTFBBBB" },
    ]);
    expect(agentLastHostColumn.read(null)).toBeNull();
    expect(
      agentLastHostColumn.read({
        cpuBusyFraction: 0.25,
        memoryUsedBytes: 1024,
        servingProcessRestarts: 0,
        at: "2026-12-03T06:00:00.000Z",
      }),
    ).toMatchObject({ cpuBusyFraction: 0.25 });
    expect(
      deploymentLastReportColumn.read({ at: "2026-12-03T06:00:00.000Z", arrivalRatePerS: 12.5, queueDepthRows: 3 }),
    ).toMatchObject({ arrivalRatePerS: 12.5 });
    // A plan keeps the defaults the agent assumes for what the stored JSON leaves out.
    expect(generationPlanColumn.read({ instances: [{ count: 1, threads: 2, batch: 4 }] })).toMatchObject({
      batchTimeoutMs: 0,
      warmupIterations: 3,
    });
    expect(proposalPlanColumn.read({})).toEqual({});
    expect(
      loadTestSpecColumn.read({ mode: "open", pattern: "constant", ratePerS: 10, durationS: 5, binary: true }),
    ).toMatchObject({ batch: 1 });
    expect(profileStoppingRuleColumn.read({ kind: "fixed", warmup: 10, iterations: 100 })).toEqual({
      kind: "fixed",
      warmup: 10,
      iterations: 100,
    });
    expect(profileProbeResultColumn.read(null)).toBeNull();
    expect(
      proposalEvidenceColumn.read({ sweep: { candidates: [] }, baselines: { oneThread: { latencyMs: null } } }),
    ).toMatchObject({ sweep: { candidates: [] } });
    expect(sweepPointsColumn.read([])).toEqual([]);
    expect(autoApprovedPolicyColumn.read(null)).toBeNull();
  });

  it("throw a typed error naming the column and the field on a corrupt value", () => {
    const dims = corrupt(() => servingDimsColumn.read({ sequence: "long" }));
    expect(dims.column).toBe("model_version.servingDims");
    expect(dims.path).toBe("sequence");
    expect(dims.message).toMatch(/^corrupt JSON in column model_version\.servingDims at sequence: /);

    const report = corrupt(() => deploymentLastReportColumn.read({ arrivalRatePerS: "fast" }));
    expect(report.message).toMatch(/column deployment\.lastReport at arrivalRatePerS/);

    const plan = corrupt(() => generationPlanColumn.read({ instances: [] }));
    expect(plan.column).toBe("deployment_generation.plan");
    expect(plan.path).toBe("instances");

    // A value of the wrong kind altogether: the error says so at the top level.
    const histograms = corrupt(() => rollupHistogramsColumn.read("not an object"));
    expect(histograms.message).toMatch(/^corrupt JSON in column metrics_rollup\.histograms: /);

    const trial = corrupt(() => planTrialJobColumn.read({ modelName: "m" }));
    expect(trial.column).toBe("job.params (plan_trial)");
    expect(corrupt(() => sweepPointsColumn.read([{ windowMs: 1, maxBatch: 2, generation: 3 }])).path).toMatch(/^0\./);
    expect(corrupt(() => autoApprovedPolicyColumn.read({ mode: "sometimes" })).message).toMatch(
      /column proposal\.autoApprovedPolicy at mode/,
    );
  });

  it("accept no value where the column is not nullable", () => {
    expect(corrupt(() => servingDimsColumn.read(null)).column).toBe("model_version.servingDims");
    expect(corrupt(() => loadTestSpecColumn.read(undefined)).column).toBe("load_test.spec");
  });
});
