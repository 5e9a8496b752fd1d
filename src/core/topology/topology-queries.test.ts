import { describe, expect, it } from "vitest";
import { syntheticTopology } from "./synthetic-topology";
import { listCores, restrictTopology, summarizeTopology } from "./topology-queries";

describe("listCores and summarizeTopology", () => {
  it("1 socket × 2 nodes × 3 cores × SMT-2: 6 cores in node order, 12 CPUs", () => {
    const topo = syntheticTopology({ sockets: 1, nodesPerSocket: 2, coresPerNode: 3, threadsPerCore: 2 });
    // Primary CPUs are 0..5, siblings 6..11: core k holds [k, k + 6].
    expect(listCores(topo).map((c) => [c.node, ...c.cpus])).toEqual([
      [0, 0, 6],
      [0, 1, 7],
      [0, 2, 8],
      [1, 3, 9],
      [1, 4, 10],
      [1, 5, 11],
    ]);
    expect(summarizeTopology(topo)).toEqual({
      sockets: 1,
      numaNodes: 2,
      physicalCores: 6,
      logicalCpus: 12,
      maxThreadsPerCore: 2,
    });
  });
});

describe("restrictTopology", () => {
  it("keeps only the budget's CPUs: socket 1 of a 2 × 4 × SMT-2 host is CPUs 4-7,12-15", () => {
    const topo = syntheticTopology({ sockets: 2, coresPerNode: 4, threadsPerCore: 2 });
    const onlySocket1 = restrictTopology(topo, [4, 5, 6, 7, 12, 13, 14, 15]);
    expect(onlySocket1.sockets.map((s) => s.id)).toEqual([1]);
    expect(summarizeTopology(onlySocket1)).toMatchObject({ physicalCores: 4, logicalCpus: 8 });
    // Half a core (CPU 4 without its sibling 12) still counts as a core, with one CPU.
    expect(listCores(restrictTopology(topo, [4])).map((c) => c.cpus)).toEqual([[4]]);
  });
});
