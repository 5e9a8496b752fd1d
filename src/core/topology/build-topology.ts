import { parseCpuList } from "./cpulist";
import { TopologyError } from "./errors";
import type { HostTopology, NumaNode, PhysicalCore, Socket, SysCpuTopology, SysNodeCpuList } from "./types";

export interface TopologyInput {
  /** One entry per online CPU, read from `/sys/devices/system/cpu/cpu*\/topology/{physical_package_id,core_id}`. */
  cpus: readonly SysCpuTopology[];
  /**
   * `/sys/devices/system/node/node*\/cpulist`. Omitted or empty (no NUMA support): each socket is its own node,
   * numbered like the socket.
   */
  nodes?: readonly SysNodeCpuList[];
  /** CPUs this process may use (`Cpus_allowed_list` or sched_getaffinity), as a cpulist or ids; omitted = all. */
  allowed?: string | readonly number[];
}

function checkId(value: number, param: string): void {
  // physical_package_id can read -1 on some virtual machines; any integer is a usable label.
  if (!Number.isInteger(value)) throw new TopologyError("invalid-cpu-id", param, `must be an integer, got ${value}`);
}

/**
 * Builds the host topology from the /sys data an agent reads. A physical core is the set of CPUs sharing
 * (physical_package_id, core_id); only allowed CPUs are kept, and cores left with none are dropped.
 */
export function buildTopology(input: TopologyInput): HostTopology {
  const allowed =
    input.allowed === undefined
      ? undefined
      : new Set(typeof input.allowed === "string" ? parseCpuList(input.allowed, "allowed") : input.allowed);

  const nodeOfCpu = new Map<number, number>();
  for (const [i, entry] of (input.nodes ?? []).entries()) {
    checkId(entry.node, `nodes[${i}].node`);
    for (const cpu of parseCpuList(entry.cpulist, `nodes[${i}].cpulist`)) {
      const seen = nodeOfCpu.get(cpu);
      if (seen !== undefined && seen !== entry.node) {
        throw new TopologyError(
          "duplicate-cpu",
          `nodes[${i}].cpulist`,
          `CPU ${cpu} is in node ${seen} and node ${entry.node}`,
        );
      }
      nodeOfCpu.set(cpu, entry.node);
    }
  }
  const hasNodes = nodeOfCpu.size > 0;

  const cores = new Map<string, PhysicalCore>();
  const seenCpus = new Set<number>();
  for (const [i, entry] of input.cpus.entries()) {
    if (!Number.isInteger(entry.cpu) || entry.cpu < 0) {
      throw new TopologyError("invalid-cpu-id", `cpus[${i}].cpu`, `must be a non-negative integer, got ${entry.cpu}`);
    }
    checkId(entry.physicalPackageId, `cpus[${i}].physicalPackageId`);
    checkId(entry.coreId, `cpus[${i}].coreId`);
    if (seenCpus.has(entry.cpu))
      throw new TopologyError("duplicate-cpu", `cpus[${i}].cpu`, `CPU ${entry.cpu} listed twice`);
    seenCpus.add(entry.cpu);
    if (allowed && !allowed.has(entry.cpu)) continue;

    let node = entry.physicalPackageId;
    if (hasNodes) {
      const n = nodeOfCpu.get(entry.cpu);
      if (n === undefined)
        throw new TopologyError("cpu-without-node", `cpus[${i}].cpu`, `CPU ${entry.cpu} is in no node cpulist`);
      node = n;
    }
    const key = `${entry.physicalPackageId}:${entry.coreId}`;
    const core = cores.get(key);
    if (!core) {
      cores.set(key, { socket: entry.physicalPackageId, node, coreId: entry.coreId, cpus: [entry.cpu] });
    } else {
      // SMT siblings share caches and FMA units; they cannot sit in different NUMA nodes on real hardware.
      if (core.node !== node) {
        const sibling = `CPU ${core.cpus[0]} (node ${core.node})`;
        throw new TopologyError(
          "core-spans-nodes",
          `cpus[${i}].cpu`,
          `CPU ${entry.cpu} (node ${node}) is a sibling of ${sibling}`,
        );
      }
      core.cpus.push(entry.cpu);
    }
  }
  if (cores.size === 0) throw new TopologyError("empty-topology", "cpus", "no usable CPU (check the allowed set)");

  const sockets = new Map<number, Map<number, PhysicalCore[]>>();
  for (const core of cores.values()) {
    core.cpus.sort((a, b) => a - b);
    const nodes = sockets.get(core.socket) ?? new Map<number, PhysicalCore[]>();
    sockets.set(core.socket, nodes);
    const list = nodes.get(core.node) ?? [];
    nodes.set(core.node, list);
    list.push(core);
  }
  const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;
  const result: Socket[] = [...sockets].map(([id, nodes]) => ({
    id,
    nodes: [...nodes]
      .map(([nodeId, list]): NumaNode => ({ id: nodeId, cores: list.sort((a, b) => a.cpus[0]! - b.cpus[0]!) }))
      .sort(byId),
  }));
  return { sockets: result.sort(byId) };
}
