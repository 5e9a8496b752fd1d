// Reads this host's topology from /sys, intersected with the CPUs this process may use: its affinity mask
// (/proc/self/status), the cgroup's effective cpuset, and the cgroup's CPU quota (cpu.max; the tightest of this
// cgroup and its ancestors), which caps the physical cores used (cgroup-cpu.ts says why floor(quota) cores).
// `root` points it at a fake tree for tests (the real one is "/").
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildTopology } from "@packrat/core/topology/build-topology";
import { parseCpuList } from "@packrat/core/topology/cpulist";
import { listCores } from "@packrat/core/topology/topology-queries";
import type { HostTopology, SysCpuTopology, SysNodeCpuList } from "@packrat/core/topology/types";
import { coresForQuota, cpusOfFirstCores, parseCfsQuota, parseCpuMax } from "./cgroup-cpu";

export interface TopologyReadOptions {
  /** Filesystem root holding sys/ and proc/ (default "/"). */
  root?: string;
}

export interface CgroupCpuLimits {
  /** The cgroup's effective cpuset, when one is visible. */
  cpuset?: number[];
  /** CPUs of quota (quota / period), the tightest along the cgroup path; undefined: no quota. */
  quotaCpus?: number;
  /** Physical cores left after the quota cap (undefined when the quota did not cut anything). */
  cappedToCores?: number;
}

export interface HostTopologyReading {
  topology: HostTopology;
  allowedCpus: number[];
  cgroup: CgroupCpuLimits;
}

const read = (path: string) => readFileSync(path, "utf8").trim();
const readIf = (path: string) => (existsSync(path) ? read(path) : undefined);

function affinity(root: string): number[] {
  const path = join(root, "proc/self/status");
  const line = read(path)
    .split("\n")
    .find((l) => l.startsWith("Cpus_allowed_list:"));
  if (!line) throw new Error(`no Cpus_allowed_list in ${path}`);
  return parseCpuList(line.split(":")[1]!.trim(), "Cpus_allowed_list");
}

/** This process's cgroup directories, leaf first up to the mount point, for one hierarchy (v2: controller ""). */
function cgroupChain(root: string, mount: string, controller: string): string[] {
  const base = join(root, "sys/fs/cgroup", mount);
  if (!existsSync(base)) return [];
  const lines = readIf(join(root, "proc/self/cgroup"))?.split("\n") ?? [];
  const line = lines.find((l) => {
    const [, controllers] = l.split(":");
    return controller === "" ? l.startsWith("0::") : (controllers ?? "").split(",").includes(controller);
  });
  const relative = line ? line.slice(line.indexOf(":", line.indexOf(":") + 1) + 1) : "/";
  // Inside a cgroup namespace (containers) the path is "/" or absent from this mount: the mount is our cgroup.
  const parts = relative.split("/").filter(Boolean);
  const chain: string[] = [];
  if (parts.length && existsSync(join(base, ...parts))) {
    for (let i = parts.length; i > 0; i--) chain.push(join(base, ...parts.slice(0, i)));
  }
  chain.push(base);
  return chain;
}

export function readCgroupCpuLimits(root = "/"): CgroupCpuLimits {
  const limits: CgroupCpuLimits = {};
  const v2 = existsSync(join(root, "sys/fs/cgroup/cgroup.controllers"));
  if (v2) {
    const chain = cgroupChain(root, "", "");
    const cpusetFile = chain.map((dir) => join(dir, "cpuset.cpus.effective")).find(existsSync);
    const cpuset = cpusetFile ? read(cpusetFile) : "";
    if (cpuset) limits.cpuset = parseCpuList(cpuset, cpusetFile);
    for (const dir of chain) {
      const text = readIf(join(dir, "cpu.max"));
      const quota = text === undefined ? undefined : parseCpuMax(text, join(dir, "cpu.max"));
      if (quota !== undefined) limits.quotaCpus = Math.min(limits.quotaCpus ?? Infinity, quota);
    }
    return limits;
  }
  // cgroup v1: one hierarchy per controller.
  const cpusetDir = cgroupChain(root, "cpuset", "cpuset").find((dir) => existsSync(join(dir, "cpuset.effective_cpus")));
  const cpuset = cpusetDir ? read(join(cpusetDir, "cpuset.effective_cpus")) : "";
  if (cpuset) limits.cpuset = parseCpuList(cpuset, join(cpusetDir!, "cpuset.effective_cpus"));
  const cpuMount = ["cpu,cpuacct", "cpu"].find((m) => existsSync(join(root, "sys/fs/cgroup", m)));
  for (const dir of cpuMount ? cgroupChain(root, cpuMount, "cpu") : []) {
    const quota = readIf(join(dir, "cpu.cfs_quota_us"));
    const period = readIf(join(dir, "cpu.cfs_period_us"));
    if (quota === undefined || period === undefined) continue;
    const cpus = parseCfsQuota(quota, period, join(dir, "cpu.cfs_quota_us"));
    if (cpus !== undefined) limits.quotaCpus = Math.min(limits.quotaCpus ?? Infinity, cpus);
  }
  return limits;
}

export function readHostTopology(options: TopologyReadOptions = {}): HostTopologyReading {
  const root = options.root ?? "/";
  const sys = (path: string) => join(root, "sys/devices/system", path);
  const online = parseCpuList(read(sys("cpu/online")), "cpu/online");
  const cpus: SysCpuTopology[] = online.map((cpu) => {
    const base = sys(`cpu/cpu${cpu}/topology`);
    const packageId = readIf(join(base, "physical_package_id"));
    const coreId = readIf(join(base, "core_id"));
    return {
      cpu,
      physicalPackageId: packageId === undefined ? 0 : Number(packageId),
      coreId: coreId === undefined ? cpu : Number(coreId),
    };
  });
  const nodeDir = sys("node");
  const nodes: SysNodeCpuList[] = existsSync(nodeDir)
    ? readdirSync(nodeDir)
        .filter((d) => /^node\d+$/.test(d))
        .map((d) => ({ node: Number(d.slice(4)), cpulist: read(join(nodeDir, d, "cpulist")) }))
        .filter((n) => n.cpulist !== "")
    : [];
  const cgroup = readCgroupCpuLimits(root);
  let allowed = affinity(root);
  if (cgroup.cpuset) {
    const effective = new Set(cgroup.cpuset);
    allowed = allowed.filter((c) => effective.has(c));
  }
  let topology = buildTopology({ cpus, nodes, allowed });
  if (cgroup.quotaCpus !== undefined) {
    const cores = coresForQuota(cgroup.quotaCpus);
    if (cores < listCores(topology).length) {
      allowed = cpusOfFirstCores(topology, cores);
      topology = buildTopology({ cpus, nodes, allowed });
      cgroup.cappedToCores = cores;
    }
  }
  return { topology, allowedCpus: allowed, cgroup };
}
