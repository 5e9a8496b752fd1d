// readHostTopology against fake /sys and /proc trees: one socket, one NUMA node, 4 physical cores with 2 SMT
// siblings each (CPU c and c + 4 share core c), as a container on a cgroup v2 (or v1) host would see them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { listCores } from "@packrat/core/topology/topology-queries";
import { readHostTopology } from "./topology-reader";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface FakeHost {
  affinity?: string;
  /** cgroup v2 files, by path relative to /sys/fs/cgroup (e.g. "kubepods/pod1/ctr/cpu.max"). */
  v2?: Record<string, string>;
  /** cgroup v1 files, by path relative to /sys/fs/cgroup (e.g. "cpu,cpuacct/cpu.cfs_quota_us"). */
  v1?: Record<string, string>;
  procCgroup?: string;
}

function fakeRoot(host: FakeHost): string {
  const root = mkdtempSync(join(tmpdir(), "fake-host-"));
  roots.push(root);
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  };
  put("sys/devices/system/cpu/online", "0-7");
  for (let cpu = 0; cpu < 8; cpu++) {
    put(`sys/devices/system/cpu/cpu${cpu}/topology/physical_package_id`, "0");
    put(`sys/devices/system/cpu/cpu${cpu}/topology/core_id`, String(cpu % 4));
  }
  put("sys/devices/system/node/node0/cpulist", "0-7");
  put("proc/self/status", `Name:\tnode\nCpus_allowed:\tff\nCpus_allowed_list:\t${host.affinity ?? "0-7"}\n`);
  if (host.procCgroup) put("proc/self/cgroup", host.procCgroup);
  if (host.v2) {
    put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids");
    for (const [path, text] of Object.entries(host.v2)) put(`sys/fs/cgroup/${path}`, text);
  }
  for (const [path, text] of Object.entries(host.v1 ?? {})) put(`sys/fs/cgroup/${path}`, text);
  return root;
}

const cores = (root: string) => listCores(readHostTopology({ root }).topology).map((c) => c.cpus);

describe("readHostTopology with a fake root", () => {
  it("no cgroup limits: all 8 CPUs as 4 cores of 2 siblings", () => {
    const reading = readHostTopology({ root: fakeRoot({}) });
    expect(reading.allowedCpus).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(listCores(reading.topology).map((c) => c.cpus)).toEqual([
      [0, 4],
      [1, 5],
      [2, 6],
      [3, 7],
    ]);
    expect(reading.cgroup).toEqual({});
  });

  it("cgroup v2 cpuset (a Guaranteed pod's exclusive CPUs under the static CPU manager): cores 2 and 3 only", () => {
    const root = fakeRoot({ v2: { "cpuset.cpus.effective": "2-3,6-7", "cpu.max": "400000 100000" } });
    // The quota of 4 CPUs allows 4 cores; the cpuset leaves 2: nothing more to cut.
    expect(cores(root)).toEqual([
      [2, 6],
      [3, 7],
    ]);
    expect(readHostTopology({ root }).cgroup).toEqual({ cpuset: [2, 3, 6, 7], quotaCpus: 4 });
  });

  it("the affinity mask and the cpuset intersect: 0-5 ∩ 2-7 = 2-5, one CPU on each of the 4 cores", () => {
    const root = fakeRoot({ affinity: "0-5", v2: { "cpuset.cpus.effective": "2-7" } });
    expect(readHostTopology({ root }).allowedCpus).toEqual([2, 3, 4, 5]);
    // Cores are listed by their lowest usable CPU: core 2 (CPU 2), core 3 (3), core 0 (4), core 1 (5).
    expect(cores(root)).toEqual([[2], [3], [4], [5]]);
  });

  it("cpu.max 200000/100000 = 2 CPUs of quota over 8 CPUs: the first 2 physical cores (4 logical CPUs) are kept", () => {
    const root = fakeRoot({ v2: { "cpu.max": "200000 100000" } });
    const reading = readHostTopology({ root });
    expect(reading.allowedCpus).toEqual([0, 1, 4, 5]);
    expect(cores(root)).toEqual([
      [0, 4],
      [1, 5],
    ]);
    expect(reading.cgroup).toEqual({ quotaCpus: 2, cappedToCores: 2 });
  });

  it("a fractional quota rounds down (2.5 CPUs → 2 cores), and one under a CPU still leaves one core", () => {
    expect(cores(fakeRoot({ v2: { "cpu.max": "250000 100000" } }))).toHaveLength(2);
    // 50 ms per 100 ms = 0.5 CPU → 1 core (the agent must serve something).
    expect(cores(fakeRoot({ v2: { "cpu.max": "50000 100000" } }))).toEqual([[0, 4]]);
    expect(cores(fakeRoot({ v2: { "cpu.max": "max 100000" } }))).toHaveLength(4);
  });

  it("follows /proc/self/cgroup to the process's cgroup; the tightest quota of it and its ancestors wins", () => {
    const root = fakeRoot({
      procCgroup: "0::/kubepods/pod1/ctr",
      v2: {
        "cpu.max": "max 100000",
        "kubepods/cpu.max": "800000 100000",
        "kubepods/pod1/cpu.max": "200000 100000", // 2 CPUs for the pod
        "kubepods/pod1/ctr/cpu.max": "max 100000",
        "kubepods/pod1/ctr/cpuset.cpus.effective": "1-3,5-7",
      },
    });
    const reading = readHostTopology({ root });
    // The cpuset leaves cores 1, 2, 3; min(8, 2) = 2 CPUs of quota keep the first two of them.
    expect(reading.cgroup).toEqual({ cpuset: [1, 2, 3, 5, 6, 7], quotaCpus: 2, cappedToCores: 2 });
    expect(reading.allowedCpus).toEqual([1, 2, 5, 6]);
  });

  it("cgroup v1: cpu.cfs_quota_us / cpu.cfs_period_us and cpuset.effective_cpus", () => {
    const root = fakeRoot({
      procCgroup: "3:cpuset:/\n2:cpu,cpuacct:/\n0::/",
      v1: {
        "cpu,cpuacct/cpu.cfs_quota_us": "150000",
        "cpu,cpuacct/cpu.cfs_period_us": "100000",
        "cpuset/cpuset.effective_cpus": "0-7",
      },
    });
    // 1.5 CPUs → 1 core.
    expect(cores(root)).toEqual([[0, 4]]);
    expect(cores(fakeRoot({ v1: { "cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000" } }))).toHaveLength(
      4,
    );
  });

  it("a malformed cpu.max is a typed error naming the file", () => {
    const root = fakeRoot({ v2: { "cpu.max": "lots 100000" } });
    expect(() => readHostTopology({ root })).toThrow(
      expect.objectContaining({ code: "invalid-cgroup-file", parameter: join(root, "sys/fs/cgroup/cpu.max") }),
    );
  });

  it("property: cores used = min(cores in the cpuset, max(1, floor(quota))), and every kept CPU is in the cpuset", () => {
    // One tree; each run rewrites only the two cgroup files.
    const root = fakeRoot({ v2: {} });
    fc.assert(
      fc.property(
        fc.subarray([0, 1, 2, 3], { minLength: 1 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (coreIds, quotaUs) => {
          const cpuset = coreIds.flatMap((c) => [c, c + 4]);
          writeFileSync(join(root, "sys/fs/cgroup/cpuset.cpus.effective"), `${cpuset.join(",")}\n`);
          writeFileSync(join(root, "sys/fs/cgroup/cpu.max"), `${quotaUs} 100000\n`);
          const reading = readHostTopology({ root });
          expect(listCores(reading.topology)).toHaveLength(
            Math.min(coreIds.length, Math.max(1, Math.floor(quotaUs / 100_000))),
          );
          for (const cpu of reading.allowedCpus) expect(cpuset).toContain(cpu);
        },
      ),
      { numRuns: 60 },
    );
  });
});
