import { describe, expect, it } from "vitest";
import {
  brokenBy,
  DEFAULT_LIMITS,
  extrapolateCapacity,
  HeartbeatStepError,
  HOLD_LIMIT,
  projectedMachineBusy,
  saturated,
  type HeartbeatStep,
} from "./heartbeats-verdict";

// 200 agents at one heartbeat per 5 s = 40 heartbeats/s intended.
const healthy: HeartbeatStep = {
  agents: 200,
  intendedPerS: 40,
  achievedPerS: 40,
  sent: 1200,
  failed: 0,
  p50Ms: 12,
  p99Ms: 80,
  controlPlaneCpu: 0.2,
  postgresCpu: 0.1,
  machineCpus: 2,
};

describe("brokenBy", () => {
  it("a step inside every limit is healthy", () => {
    expect(brokenBy(healthy)).toEqual([]);
  });

  it("names each limit crossed: p99, failures, falling behind, control-plane CPU, database CPU", () => {
    expect(brokenBy({ ...healthy, p99Ms: 1500 })).toEqual(["heartbeat p99 1500 ms > 1000 ms"]);
    // 13 of 1200 = 1.08% > 1%; 12 of 1200 = 1% is not above the limit.
    expect(brokenBy({ ...healthy, failed: 13 })).toEqual(["13 of 1200 heartbeats failed"]);
    expect(brokenBy({ ...healthy, failed: 12 })).toEqual([]);
    // 0.95 × 40 = 38: 37.9 falls behind, 38 does not.
    expect(brokenBy({ ...healthy, achievedPerS: 37.9 })).toEqual(["37.9 heartbeats/s answered of 40.0 intended"]);
    expect(brokenBy({ ...healthy, achievedPerS: 38 })).toEqual([]);
    expect(brokenBy({ ...healthy, controlPlaneCpu: 0.95 })).toEqual(["control plane at 95% of a core"]);
    // 0.9 × 2 CPUs = 1.8 cores for the database.
    expect(brokenBy({ ...healthy, postgresCpu: 1.85 })).toEqual(["PostgreSQL at 1.85 of 2 CPUs"]);
    expect(brokenBy({ ...healthy, postgresCpu: 1.8 })).toEqual([]);
  });

  it("refuses NaN, negative and zero-rate input with a typed error naming the field", () => {
    expect(() => brokenBy({ ...healthy, p99Ms: Number.NaN })).toThrow(
      expect.objectContaining({ code: "invalid-step", parameter: "p99Ms" }),
    );
    expect(() => brokenBy({ ...healthy, failed: -1 })).toThrow(/failed/);
    expect(() => brokenBy({ ...healthy, intendedPerS: 0 })).toThrow(/intendedPerS/);
  });
});

describe("saturated", () => {
  it("only when heartbeats are lost (> 5%) or answered below 80% of the intended rate; slow alone is not saturated", () => {
    expect(saturated({ ...healthy, p99Ms: 5000 })).toBe(false);
    // 61 of 1200 = 5.08% > 5%.
    expect(saturated({ ...healthy, failed: 61 })).toBe(true);
    expect(saturated({ ...healthy, failed: 60 })).toBe(false);
    // 0.8 × 40 = 32.
    expect(saturated({ ...healthy, achievedPerS: 31.9 })).toBe(true);
    expect(saturated({ ...healthy, achievedPerS: 32 })).toBe(false);
  });

  it("ignores fields beyond the step's own (a result row carries more)", () => {
    expect(saturated({ ...healthy, ...{ broken: ["x"], statuses: {} } } as HeartbeatStep)).toBe(false);
  });
});

describe("extrapolateCapacity", () => {
  it("40 heartbeats/s at 0.2 of a core → 0.9 / 0.2 × 40 = 180/s for the control plane; the database 1.8 / 0.1 × 40 = 720/s", () => {
    const capacity = extrapolateCapacity(healthy, 5000);
    expect(capacity.controlPlanePerS).toBeCloseTo(180, 9);
    expect(capacity.postgresPerS).toBeCloseTo(720, 9);
    expect(capacity.bottleneck).toBe("control plane");
    // 180 heartbeats/s × 5 s = 900 agents.
    expect(capacity.agents).toBe(900);
  });

  it("the database is the bottleneck when it costs more per heartbeat than its share of the machine allows", () => {
    const capacity = extrapolateCapacity({ ...healthy, controlPlaneCpu: 0.1, postgresCpu: 1.2 }, 5000);
    // Control plane 0.9 / 0.1 × 40 = 360/s; database 1.8 / 1.2 × 40 = 60/s → 300 agents.
    expect(capacity.bottleneck).toBe("PostgreSQL");
    expect(capacity.agents).toBe(300);
    expect(DEFAULT_LIMITS.cpuFraction).toBe(0.9);
  });

  it("refuses a step with nothing answered and a bad interval", () => {
    expect(() => extrapolateCapacity({ ...healthy, achievedPerS: 0 }, 5000)).toThrow(/achievedPerS/);
    expect(() => extrapolateCapacity(healthy, 0)).toThrow(/intervalMs/);
  });
});

describe("projectedMachineBusy", () => {
  // 2 000 agents at 5 s: 400 heartbeats/s on 0.32 + 0.26 + 0.18 = 0.76 cores, 1.9 ms of a core per heartbeat;
  // 0.03 cores of other processes.
  const step = {
    achievedPerS: 400,
    controlPlaneCpu: 0.32,
    postgresCpu: 0.26,
    clientCpu: 0.18,
    othersCpu: 0.03,
    machineCpus: 2,
  };

  it("scales the three parts' CPU per heartbeat to the new rate and keeps the others' as measured", () => {
    // 3 000 agents: 600/s × 1.9e-3 = 1.14 cores, + 0.03 = 1.17 of 2 = 0.585: inside the limit.
    expect(projectedMachineBusy(step, 3000, 5000)).toBeCloseTo(0.585, 10);
    expect(projectedMachineBusy(step, 3000, 5000)).toBeLessThan(HOLD_LIMIT);
    // 5 000 agents: 1 000/s × 1.9e-3 = 1.9, + 0.03 = 1.93 of 2 = 0.965: past it.
    expect(projectedMachineBusy(step, 5000, 5000)).toBeCloseTo(0.965, 10);
    // The same step itself: 0.76 + 0.03 = 0.79 of 2.
    expect(projectedMachineBusy(step, 2000, 5000)).toBeCloseTo(0.395, 10);
  });

  it("refuses a step it cannot project from", () => {
    expect(() => projectedMachineBusy({ ...step, achievedPerS: 0 }, 3000, 5000)).toThrow(HeartbeatStepError);
    expect(() => projectedMachineBusy({ ...step, clientCpu: Number.NaN }, 3000, 5000)).toThrow(/clientCpu/);
    expect(() => projectedMachineBusy({ ...step, machineCpus: 0 }, 3000, 5000)).toThrow(/machineCpus/);
    expect(() => projectedMachineBusy(step, 3000, 0)).toThrow(/intervalMs/);
  });
});
