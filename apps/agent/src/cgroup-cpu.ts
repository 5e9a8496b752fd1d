// The CPU budget a cgroup grants this process: the quota (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` /
// `cpu.cfs_period_us`) and how many physical cores the agent may use under it. Every instance thread is pinned to a
// core of its own (the allocator never puts two on one core), so k busy cores burn at most k CPUs of quota: a quota
// of q CPUs allows floor(q) cores, and never fewer than one (the agent must serve something). A fractional rest is
// left to the agent's own unpinned threads (HTTP, dispatch, heartbeats).
import { listCores } from "@packrat/core/topology/topology-queries";
import type { HostTopology } from "@packrat/core/topology/types";

export class CgroupFileError extends Error {
  readonly code = "invalid-cgroup-file";
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

const integer = (text: string, parameter: string): number => {
  if (!/^-?\d+$/.test(text)) throw new CgroupFileError(parameter, `not an integer: "${text.slice(0, 40)}"`);
  return Number(text);
};

/** `cpu.max` ("QUOTA PERIOD" or "max PERIOD") → CPUs of quota, or undefined for no limit. */
export function parseCpuMax(text: string, parameter = "cpu.max"): number | undefined {
  const [quota, period, ...rest] = text.trim().split(/\s+/);
  if (!quota || rest.length)
    throw new CgroupFileError(parameter, `expected "QUOTA PERIOD", got "${text.trim().slice(0, 40)}"`);
  if (quota === "max") return undefined;
  return quotaCpus(integer(quota, parameter), period === undefined ? 100_000 : integer(period, parameter), parameter);
}

/** cgroup v1: quota -1 means no limit. */
export function parseCfsQuota(
  quotaText: string,
  periodText: string,
  parameter = "cpu.cfs_quota_us",
): number | undefined {
  const quota = integer(quotaText.trim(), parameter);
  if (quota === -1) return undefined;
  return quotaCpus(quota, integer(periodText.trim(), parameter.replace("quota", "period")), parameter);
}

function quotaCpus(quotaUs: number, periodUs: number, parameter: string): number {
  if (quotaUs <= 0) throw new CgroupFileError(parameter, `quota must be positive, got ${quotaUs}`);
  if (periodUs <= 0) throw new CgroupFileError(parameter, `period must be positive, got ${periodUs}`);
  return quotaUs / periodUs;
}

/** Physical cores a quota of `cpus` allows: floor, at least one. */
export function coresForQuota(cpus: number): number {
  if (!Number.isFinite(cpus) || cpus <= 0)
    throw new CgroupFileError("quota", `must be a positive number of CPUs, got ${cpus}`);
  return Math.max(1, Math.floor(cpus + 1e-9));
}

/** The CPUs of the first `cores` physical cores in topology order (socket, node, core): compact, node-local first. */
export function cpusOfFirstCores(topology: HostTopology, cores: number): number[] {
  return listCores(topology)
    .slice(0, cores)
    .flatMap((core) => core.cpus)
    .sort((a, b) => a - b);
}
