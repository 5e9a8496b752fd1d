import type { HostTopology, PhysicalCore } from "./types";

/** Every physical core, in topology order (socket, node, lowest CPU). */
export function listCores(topology: HostTopology): PhysicalCore[] {
  return topology.sockets.flatMap((s) => s.nodes.flatMap((n) => n.cores));
}

export interface TopologySummary {
  sockets: number;
  numaNodes: number;
  physicalCores: number;
  logicalCpus: number;
  /** Most SMT siblings on any one core (1 = no SMT, or SMT hidden by the allowed set). */
  maxThreadsPerCore: number;
}

export function summarizeTopology(topology: HostTopology): TopologySummary {
  const cores = listCores(topology);
  return {
    sockets: topology.sockets.length,
    numaNodes: topology.sockets.reduce((sum, s) => sum + s.nodes.length, 0),
    physicalCores: cores.length,
    logicalCpus: cores.reduce((sum, c) => sum + c.cpus.length, 0),
    maxThreadsPerCore: cores.reduce((max, c) => Math.max(max, c.cpus.length), 0),
  };
}

/**
 * Keeps only the given logical CPUs (e.g. one model's core budget). Cores, nodes and sockets left empty are dropped;
 * the result may be empty.
 */
export function restrictTopology(topology: HostTopology, cpus: Iterable<number>): HostTopology {
  const keep = new Set(cpus);
  return {
    sockets: topology.sockets
      .map((s) => ({
        id: s.id,
        nodes: s.nodes
          .map((n) => ({
            id: n.id,
            cores: n.cores
              .map((c) => ({ ...c, cpus: c.cpus.filter((cpu) => keep.has(cpu)) }))
              .filter((c) => c.cpus.length > 0),
          }))
          .filter((n) => n.cores.length > 0),
      }))
      .filter((s) => s.nodes.length > 0),
  };
}
