import { buildTopology, type TopologyInput } from "./build-topology";
import { formatCpuList } from "./cpulist";
import { TopologyError } from "./errors";
import type { HostTopology, SysCpuTopology } from "./types";

export interface SyntheticTopologySpec {
  sockets: number;
  nodesPerSocket?: number;
  coresPerNode: number;
  threadsPerCore?: number;
}

/**
 * The /sys data of an imaginary host numbered the way Linux numbers x86 servers: first one CPU of every physical
 * core (socket by socket), then the second SMT sibling of every core in the same order. For tests and fixtures.
 * E.g. 2 sockets × 8 cores × SMT-2: socket 0 holds CPUs 0–7 and 16–23, CPU 16 is the sibling of CPU 0.
 */
export function syntheticSysTopology(spec: SyntheticTopologySpec): Required<Omit<TopologyInput, "allowed">> {
  for (const key of ["sockets", "nodesPerSocket", "coresPerNode", "threadsPerCore"] as const) {
    const v = spec[key];
    if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= 1024)) {
      throw new TopologyError("invalid-spec", key, `must be an integer in 1..1024, got ${v}`);
    }
  }
  const nodesPerSocket = spec.nodesPerSocket ?? 1;
  const threads = spec.threadsPerCore ?? 1;
  const coresPerSocket = nodesPerSocket * spec.coresPerNode;
  const physical = spec.sockets * coresPerSocket;
  const cpus: SysCpuTopology[] = [];
  const nodeCpus = new Map<number, number[]>();
  for (let thread = 0; thread < threads; thread++) {
    for (let core = 0; core < physical; core++) {
      const cpu = thread * physical + core;
      const socket = Math.floor(core / coresPerSocket);
      const coreInSocket = core % coresPerSocket;
      const node = socket * nodesPerSocket + Math.floor(coreInSocket / spec.coresPerNode);
      cpus.push({ cpu, physicalPackageId: socket, coreId: coreInSocket });
      nodeCpus.set(node, [...(nodeCpus.get(node) ?? []), cpu]);
    }
  }
  const nodes = [...nodeCpus].map(([node, list]) => ({ node, cpulist: formatCpuList(list) }));
  return { cpus, nodes };
}

export function syntheticTopology(spec: SyntheticTopologySpec, allowed?: string | readonly number[]): HostTopology {
  return buildTopology({ ...syntheticSysTopology(spec), allowed });
}
