// Who used the profiled CPUs while a cell was measured: busy time of those CPUs from /proc/stat (user, nice,
// system, irq, softirq and steal: a hypervisor's steal is time we were not given) minus this process's own CPU
// time (/proc/self/stat utime + stime, every thread). The rest was taken by other processes (or other guests).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

export interface CpuSnapshot {
  busyTicks: number;
  ownTicks: number;
  atMs: number;
}

let ticksPerSecond: number | undefined;
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export function cpuSnapshot(cpus: readonly number[]): CpuSnapshot {
  const wanted = new Set(cpus.map((c) => `cpu${c}`));
  let busy = 0;
  for (const line of readFileSync("/proc/stat", "utf8").split("\n")) {
    const fields = line.split(/\s+/);
    if (!wanted.has(fields[0]!)) continue;
    const [user, nice, system, , , irq, softirq, steal] = fields.slice(1, 9).map(Number);
    busy += user! + nice! + system! + irq! + softirq! + (steal ?? 0);
  }
  // Fields after the command name (which may hold spaces) start after the last ')'; utime and stime are the
  // 14th and 15th fields of the line, the 12th and 13th after it.
  const stat = readFileSync("/proc/self/stat", "utf8");
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const own = Number(rest[11]) + Number(rest[12]);
  return { busyTicks: busy, ownTicks: own, atMs: performance.now() };
}

/** Other processes' CPU time on the profiled CPUs between two snapshots, and the CPU time those CPUs had. */
export function interferenceBetween(
  a: CpuSnapshot,
  b: CpuSnapshot,
  cpuCount: number,
): { otherMs: number; capacityMs: number } {
  const tickMs = 1000 / clockTicksPerSecond();
  const other = Math.max(0, b.busyTicks - a.busyTicks - (b.ownTicks - a.ownTicks)) * tickMs;
  return { otherMs: other, capacityMs: (b.atMs - a.atMs) * cpuCount };
}
