/**
 * Host topology: sockets → NUMA nodes → physical cores → logical CPUs (SMT siblings).
 * Plain data (JSON-safe) so an agent can report it and the control plane can store it.
 * Every list is sorted: sockets and nodes by id, cores by their lowest logical CPU, CPUs ascending.
 */
export interface PhysicalCore {
  /** `physical_package_id` of its CPUs. */
  socket: number;
  /** NUMA node holding its CPUs. */
  node: number;
  /** `core_id` of its CPUs (unique only within a socket). */
  coreId: number;
  /** The usable SMT siblings, ascending; `cpus[0]` is the one used when SMT siblings are excluded. */
  cpus: number[];
}

export interface NumaNode {
  id: number;
  cores: PhysicalCore[];
}

export interface Socket {
  id: number;
  nodes: NumaNode[];
}

export interface HostTopology {
  sockets: Socket[];
}

/** One `/sys/devices/system/cpu/cpuN/topology/` directory: the files `physical_package_id` and `core_id`. */
export interface SysCpuTopology {
  cpu: number;
  physicalPackageId: number;
  coreId: number;
}

/** One `/sys/devices/system/node/nodeN/cpulist` file. */
export interface SysNodeCpuList {
  node: number;
  cpulist: string;
}
