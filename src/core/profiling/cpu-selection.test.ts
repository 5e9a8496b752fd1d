import { describe, expect, it } from "vitest";
import type { HostTopology } from "../topology/types";
import { selectProfilingCpus } from "./cpu-selection";

// Two sockets × 4 physical cores × 2 SMT siblings: socket 0 has cores (0,8) (1,9) (2,10) (3,11), socket 1 has
// (4,12) (5,13) (6,14) (7,15).
const topology: HostTopology = {
  sockets: [0, 1].map((s) => ({
    id: s,
    nodes: [
      { id: s, cores: [0, 1, 2, 3].map((i) => ({ socket: s, node: s, coreId: i, cpus: [s * 4 + i, s * 4 + i + 8] })) },
    ],
  })),
};
const all = Array.from({ length: 16 }, (_, i) => i);

describe("profiling CPU selection", () => {
  it("offers whole free cores on the budget's socket", () => {
    // Budget: cores 0 and 1 (CPUs 0, 1, 8, 9). Free on socket 0: cores 2 and 3 → CPUs 2, 3, 10, 11.
    const s = selectProfilingCpus({
      topology,
      allowedCpus: all,
      budgetCpus: [0, 1, 8, 9],
      deploymentBudgets: [],
      coresNeeded: 2,
    });
    expect(s).toEqual({ kind: "free", cpus: [2, 3, 10, 11], socket: 0, freeCores: 2 });
  });

  it("a core with a sibling in another deployment's budget is not free; the other socket does not count", () => {
    // CPU 10 (core 2's sibling) serves another deployment: only core 3 is free on socket 0; socket 1 is all free.
    const s = selectProfilingCpus({
      topology,
      allowedCpus: all,
      budgetCpus: [0, 1, 8, 9],
      deploymentBudgets: [[10]],
      coresNeeded: 2,
    });
    expect(s.kind).toBe("serving");
    expect(s.cpus).toEqual([0, 1, 8, 9]);
    expect(s.freeCores).toBe(1);
    expect(s.kind === "serving" && s.reason).toBe(
      "1 physical core outside every deployment's budget on socket 0, 2 needed: it measures on the serving cores",
    );
  });

  it("CPUs the agent may not use are not free", () => {
    const s = selectProfilingCpus({
      topology,
      allowedCpus: [0, 1, 8, 9, 2, 10],
      budgetCpus: [0, 1, 8, 9],
      deploymentBudgets: [],
      coresNeeded: 1,
    });
    expect(s).toEqual({ kind: "free", cpus: [2, 10], socket: 0, freeCores: 1 });
  });

  it("the socket holding most of the budget is the one searched", () => {
    // Budget: three cores on socket 1 (4, 5, 6) and one on socket 0 (0): socket 1, whose only free core is 7.
    const s = selectProfilingCpus({
      topology,
      allowedCpus: all,
      budgetCpus: [0, 4, 5, 6],
      deploymentBudgets: [],
      coresNeeded: 1,
    });
    expect(s).toEqual({ kind: "free", cpus: [7, 15], socket: 1, freeCores: 1 });
  });
});
