import { describe, expect, it } from "vitest";
import { syntheticSysTopology, syntheticTopology } from "./synthetic-topology";
import { summarizeTopology } from "./topology-queries";

describe("syntheticTopology", () => {
  it("2 sockets × 8 cores × SMT-2: 16 physical cores, 32 CPUs, CPU 16 is CPU 0's sibling, socket 1 starts at CPU 8", () => {
    const topo = syntheticTopology({ sockets: 2, coresPerNode: 8, threadsPerCore: 2 });
    expect(summarizeTopology(topo)).toEqual({
      sockets: 2,
      numaNodes: 2,
      physicalCores: 16,
      logicalCpus: 32,
      maxThreadsPerCore: 2,
    });
    expect(topo.sockets[0]!.nodes[0]!.cores[0]!.cpus).toEqual([0, 16]);
    expect(topo.sockets[1]!.nodes[0]!.cores[0]!.cpus).toEqual([8, 24]);
  });
  it("writes node cpulists the way sysfs does: 1 socket × 2 nodes × 2 cores × SMT-2 → node0 0-1,4-5; node1 2-3,6-7", () => {
    expect(syntheticSysTopology({ sockets: 1, nodesPerSocket: 2, coresPerNode: 2, threadsPerCore: 2 }).nodes).toEqual([
      { node: 0, cpulist: "0-1,4-5" },
      { node: 1, cpulist: "2-3,6-7" },
    ]);
  });
  it("rejects a non-positive count", () => {
    expect(() => syntheticTopology({ sockets: 0, coresPerNode: 2 })).toThrow(/sockets/);
  });
});
