import { describe, expect, it } from "vitest";
import { agentTopology } from "./host-topology";

const topology = { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0, 4] }, { socket: 0, node: 0, coreId: 1, cpus: [1, 5] }] }] }] };

describe("agentTopology", () => {
  it("reads the topology an agent row stores", () => {
    expect(agentTopology({ topology })).toEqual(topology);
  });

  it("refuses a column that does not hold a topology", () => {
    expect(() => agentTopology({ topology: {} })).toThrow();
    expect(() => agentTopology({ topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [] }] }] }] } })).toThrow();
  });
});
