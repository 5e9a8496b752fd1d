// Reads which CPUs a thread of this process may run on, from /proc (the kernel's truth, not what we asked for).
import { readFileSync } from "node:fs";
import { parseCpuList } from "@packrat/core/topology/cpulist";

export function threadCpus(tid: number, pid: number = process.pid): number[] | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
    const line = status.split("\n").find((l) => l.startsWith("Cpus_allowed_list:"));
    return line ? parseCpuList(line.split(":")[1]!.trim()) : undefined;
  } catch {
    return undefined; // the thread is gone
  }
}

export function processCpus(pid: number = process.pid): number[] {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const line = status.split("\n").find((l) => l.startsWith("Cpus_allowed_list:"));
  if (!line) throw new Error(`no Cpus_allowed_list in /proc/${pid}/status`);
  return parseCpuList(line.split(":")[1]!.trim());
}

export interface ThreadAffinity {
  tid: number;
  role: "caller" | "pool";
  expected: number[];
  actual: number[] | undefined;
  ok: boolean;
}

const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The caller thread must be confined to core 0's CPUs; ORT pool threads to the other cores' CPUs, one core each
 * (ORT assigns them in order, but we only require each to sit on one of the instance's other cores).
 */
export function verifyInstanceAffinity(
  tid: number,
  poolTids: readonly number[],
  coreCpus: readonly number[][],
): ThreadAffinity[] {
  const report: ThreadAffinity[] = [];
  const caller = threadCpus(tid);
  report.push({
    tid,
    role: "caller",
    expected: [...coreCpus[0]!],
    actual: caller,
    ok: !!caller && same(caller, coreCpus[0]!),
  });
  const others = coreCpus.slice(1);
  for (const poolTid of poolTids) {
    const actual = threadCpus(poolTid);
    const match = actual ? others.find((cpus) => same(cpus, actual)) : undefined;
    report.push({ tid: poolTid, role: "pool", expected: others.flat(), actual, ok: !!match });
  }
  return report;
}
