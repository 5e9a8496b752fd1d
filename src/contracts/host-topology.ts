// A host's topology as it crosses a process: an agent reports it at registration and the control plane stores it
// in the agent row's `topology` JSON column. This schema is the one reader of that column; its inferred type is
// checked against the core's HostTopology at compile time, so the two cannot drift apart.
import { z } from "zod";
import type { HostTopology } from "../core/topology/types";
import { jsonColumn, type StoredJsonValue } from "./json-column";

/** A logical CPU number. */
export const cpuId = z.number().int().min(0).max(65_535);

export const hostTopologySchema = z.object({
  sockets: z
    .array(
      z.object({
        id: z.number().int(),
        nodes: z.array(
          z.object({
            id: z.number().int(),
            cores: z.array(
              z.object({
                socket: z.number().int(),
                node: z.number().int(),
                coreId: z.number().int(),
                cpus: z.array(cpuId).min(1),
              }),
            ),
          }),
        ),
      }),
    )
    .min(1),
});

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const _schemaIsHostTopology: Same<z.infer<typeof hostTopologySchema>, HostTopology> = true;
void _schemaIsHostTopology;

/** agent.topology: the host's sockets, NUMA nodes, cores and CPUs as the agent reported them at registration. */
export const agentTopologyColumn = jsonColumn("agent.topology", hostTopologySchema);

/** The topology stored in an agent row (registration validated it; a row that does not hold one throws). */
export function agentTopology(agent: { topology: StoredJsonValue }): HostTopology {
  return agentTopologyColumn.read(agent.topology);
}
