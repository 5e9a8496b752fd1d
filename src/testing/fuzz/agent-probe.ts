// What the fuzz runs watch on a live agent: its serving process (pid, restarts) and that process's memory.
import { readFileSync } from "node:fs";

export interface ServingSnapshot {
  pid: number;
  restarts: number;
}

export async function servingSnapshot(agentUrl: string): Promise<ServingSnapshot> {
  const status = (await (await fetch(`${agentUrl}/agent/status`)).json()) as {
    pid: number;
    servingProcessRestarts: number;
  };
  return { pid: status.pid, restarts: status.servingProcessRestarts };
}

/** VmRSS and VmHWM (peak RSS) of a process, in bytes, from /proc/PID/status. */
export function processMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}
