import { describe, expect, it } from "vitest";
import { buildTopology } from "./build-topology";
import { TopologyError } from "./errors";
import { listCores } from "./topology-queries";

// A 1-socket, 2-core, SMT-2 laptop as its /sys reads: CPUs 0 and 1 are siblings on core 0, CPUs 2 and 3 on core 1
// (this numbering, siblings adjacent, is what many AMD and some Intel client parts report).
const laptop = {
  cpus: [
    { cpu: 0, physicalPackageId: 0, coreId: 0 },
    { cpu: 1, physicalPackageId: 0, coreId: 0 },
    { cpu: 2, physicalPackageId: 0, coreId: 1 },
    { cpu: 3, physicalPackageId: 0, coreId: 1 },
  ],
  nodes: [{ node: 0, cpulist: "0-3\n" }],
};

describe("buildTopology", () => {
  it("groups SMT siblings by (physical_package_id, core_id)", () => {
    expect(buildTopology(laptop)).toEqual({
      sockets: [
        {
          id: 0,
          nodes: [
            {
              id: 0,
              cores: [
                { socket: 0, node: 0, coreId: 0, cpus: [0, 1] },
                { socket: 0, node: 0, coreId: 1, cpus: [2, 3] },
              ],
            },
          ],
        },
      ],
    });
  });

  it("keeps core_id apart per socket: core 0 of socket 0 and core 0 of socket 1 are two cores", () => {
    const topo = buildTopology({
      cpus: [
        { cpu: 0, physicalPackageId: 0, coreId: 0 },
        { cpu: 1, physicalPackageId: 1, coreId: 0 },
      ],
    });
    expect(listCores(topo).map((c) => c.cpus)).toEqual([[0], [1]]);
    // No node files: each socket becomes one node numbered like the socket.
    expect(topo.sockets.map((s) => s.nodes.map((n) => n.id))).toEqual([[0], [1]]);
  });

  it("intersects with the allowed set (Cpus_allowed_list) and drops cores left empty", () => {
    const topo = buildTopology({ ...laptop, allowed: "0,2-3" });
    // Core 0 keeps only CPU 0; core 1 keeps both siblings.
    expect(listCores(topo).map((c) => c.cpus)).toEqual([[0], [2, 3]]);
    expect(listCores(buildTopology({ ...laptop, allowed: [2] })).map((c) => c.cpus)).toEqual([[2]]);
  });

  it("orders cores by lowest CPU even when core_id has gaps (Intel numbers cores 0,1,2,3,4,8,9,…)", () => {
    const topo = buildTopology({
      cpus: [
        { cpu: 0, physicalPackageId: 0, coreId: 8 },
        { cpu: 1, physicalPackageId: 0, coreId: 0 },
        { cpu: 2, physicalPackageId: 0, coreId: 4 },
      ],
    });
    expect(listCores(topo).map((c) => c.coreId)).toEqual([8, 0, 4]);
  });

  it("rejects bad input with typed errors that name the parameter", () => {
    const cases: Array<[Parameters<typeof buildTopology>[0], string, string]> = [
      [{ cpus: [] }, "empty-topology", "cpus"],
      [{ ...laptop, allowed: "7" }, "empty-topology", "cpus"],
      [{ cpus: [{ cpu: -1, physicalPackageId: 0, coreId: 0 }] }, "invalid-cpu-id", "cpus[0].cpu"],
      [{ cpus: [{ cpu: 0, physicalPackageId: 0.5, coreId: 0 }] }, "invalid-cpu-id", "cpus[0].physicalPackageId"],
      [{ cpus: [laptop.cpus[0]!, laptop.cpus[0]!] }, "duplicate-cpu", "cpus[1].cpu"],
      [{ cpus: laptop.cpus, nodes: [{ node: 0, cpulist: "0-2" }] }, "cpu-without-node", "cpus[3].cpu"],
      [
        {
          cpus: laptop.cpus,
          nodes: [
            { node: 0, cpulist: "0-1" },
            { node: 1, cpulist: "1-3" },
          ],
        },
        "duplicate-cpu",
        "nodes[1].cpulist",
      ],
      [
        {
          cpus: laptop.cpus,
          nodes: [
            { node: 0, cpulist: "0,2" },
            { node: 1, cpulist: "1,3" },
          ],
        },
        "core-spans-nodes",
        "cpus[1].cpu",
      ],
      [{ cpus: laptop.cpus, nodes: [{ node: 0, cpulist: "0-x" }] }, "invalid-cpulist", "nodes[0].cpulist"],
    ];
    for (const [input, code, param] of cases) {
      expect(() => buildTopology(input)).toThrow(TopologyError);
      try {
        buildTopology(input);
      } catch (e) {
        expect(e).toMatchObject({ code, parameter: param });
      }
    }
  });
});
