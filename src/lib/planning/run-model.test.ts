import { describe, expect, it } from "vitest";
import { latencyBudget } from "@/core/planning/latency-budget";
import { mm1 } from "@/core/planning/queueing";
import { runModel } from "./run-model";

describe("running a planning model from a form", () => {
  it("returns the value when the model accepts its inputs", () => {
    // M/M/1 at ρ = 0.5: W = S / (1 − ρ) = 2 × 3.5 = 7 ms.
    const r = runModel(() => mm1({ arrivalRatePerS: 1000 / 7, serviceTimeMs: 3.5 }).meanSojournMs);
    expect(r.ok && r.value).toBeCloseTo(7, 12);
  });

  it("maps the refused parameter to its form field: ρ ≥ 1 is the arrival rate's fault", () => {
    // 300 req/s × 3.5 ms = 1.05 ≥ 1.
    const r = runModel(() => mm1({ arrivalRatePerS: 300, serviceTimeMs: 3.5 }), {
      arrivalRatePerS: "rate",
      serviceTimeMs: "service",
    });
    expect(r).toMatchObject({ ok: false, field: "rate" });
    expect(!r.ok && r.message).toMatch(/^arrivalRatePerS: utilization ρ = 1\.05/);
  });

  it("with field labels, the message names the field as the form does", () => {
    const labels: Record<string, string> = { rate: "Arrival rate", service: "Service time" };
    const r = runModel(
      () => mm1({ arrivalRatePerS: 300, serviceTimeMs: 3.5 }),
      { arrivalRatePerS: "rate" },
      (f) => labels[f]!,
    );
    expect(!r.ok && r.message).toMatch(/^Arrival rate: utilization ρ = 1\.05/);
  });

  it("the longest matching prefix wins, so indexed parameters map through their array's name", () => {
    const stages = [{ name: "x", kind: "inference" as const, durationMs: -1 }];
    const r = runModel(() => latencyBudget({ slo: { deadlineMs: 50, quantile: 0.99 }, stages }), {
      stages: "allStages",
      "stages[0]": "firstStage",
    });
    expect(r).toMatchObject({ ok: false, field: "firstStage" });
  });

  it("an unmapped parameter still gives its message, without a field", () => {
    const r = runModel(() => mm1({ arrivalRatePerS: 300, serviceTimeMs: 3.5 }));
    expect(r.ok).toBe(false);
    expect(r).not.toHaveProperty("field");
  });

  it("a programming error is not swallowed", () => {
    expect(() =>
      runModel(() => {
        throw new Error("bug");
      }),
    ).toThrow("bug");
  });
});
