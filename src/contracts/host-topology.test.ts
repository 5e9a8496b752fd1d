import { describe, expect, it } from "vitest";
import { agentTopology } from "./host-topology";
import { CorruptJsonColumnError } from "./json-column";

const topology = {
  sockets: [
    {
      id: 0,
      nodes: [
        {
          id: 0,
          cores: [
            { socket: 0, node: 0, coreId: 0, cpus: [0, 4] },
            { socket: 0, node: 0, coreId: 1, cpus: [1, 5] },
          ],
        },
      ],
    },
  ],
};

describe("agentTopology", () => {
  it("reads the topology an agent row stores", () => {
    expect(agentTopology({ topology })).toEqual(topology);
  });

  it("refuses a column that does not hold a topology, naming the column", () => {
    expect(() => agentTopology({ topology: {} })).toThrow(CorruptJsonColumnError);
    expect(() => agentTopology({ topology: {} })).toThrow(/column agent\.topology at sockets/);
    expect(() =>
      agentTopology({
        topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [] }] }] }] },
      }),
    ).toThrow(/agent\.topology at sockets\.0\.nodes\.0\.cores\.0\.cpus/);
  });
});
