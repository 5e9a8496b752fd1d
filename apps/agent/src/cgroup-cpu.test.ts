import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTopology } from "@packrat/core/topology/build-topology";
import { coresForQuota, cpusOfFirstCores, parseCfsQuota, parseCpuMax } from "./cgroup-cpu";

describe("cgroup CPU quota", () => {
  it("cpu.max: 150000 µs per 100000 µs period = 1.5 CPUs; 'max' = no limit; the period defaults to 100000", () => {
    expect(parseCpuMax("150000 100000")).toBe(1.5);
    expect(parseCpuMax("max 100000\n")).toBeUndefined();
    expect(parseCpuMax("200000")).toBe(2);
  });

  it("cgroup v1: -1 is no limit; 250000 / 100000 = 2.5 CPUs", () => {
    expect(parseCfsQuota("-1", "100000")).toBeUndefined();
    expect(parseCfsQuota("250000\n", "100000\n")).toBe(2.5);
  });

  it("bad files are typed errors naming the file", () => {
    expect(() => parseCpuMax("", "/x/cpu.max")).toThrow(
      expect.objectContaining({ code: "invalid-cgroup-file", parameter: "/x/cpu.max" }),
    );
    expect(() => parseCpuMax("1 2 3")).toThrow(/expected "QUOTA PERIOD"/);
    expect(() => parseCpuMax("100000 0")).toThrow(/period must be positive/);
    expect(() => parseCfsQuota("0", "100000")).toThrow(/quota must be positive/);
    expect(() => coresForQuota(Number.NaN)).toThrow(
      expect.objectContaining({ code: "invalid-cgroup-file", parameter: "quota" }),
    );
  });

  it("cores for a quota: floor, never below one (0.5 → 1, 1 → 1, 2.99 → 2, 3 → 3)", () => {
    expect([0.5, 1, 2.99, 3].map(coresForQuota)).toEqual([1, 1, 2, 3]);
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 512, noNaN: true }), (q) => {
        const cores = coresForQuota(q);
        expect(cores).toBeGreaterThanOrEqual(1);
        // floor: k ≤ q < k + 1, except the one-core floor under one CPU.
        if (q >= 1) {
          expect(cores).toBeLessThanOrEqual(q + 1e-9);
          expect(cores + 1).toBeGreaterThan(q);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("the first cores in topology order: socket 0 before socket 1, siblings together", () => {
    // Two sockets of two cores: CPUs 0,1 on socket 0 (cores 0,1), 2,3 on socket 1; siblings 4-7.
    const topology = buildTopology({
      cpus: [0, 1, 2, 3, 4, 5, 6, 7].map((cpu) => ({ cpu, physicalPackageId: cpu % 4 < 2 ? 0 : 1, coreId: cpu % 2 })),
    });
    expect(cpusOfFirstCores(topology, 1)).toEqual([0, 4]);
    expect(cpusOfFirstCores(topology, 3)).toEqual([0, 1, 2, 4, 5, 6]);
    expect(cpusOfFirstCores(topology, 9)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
