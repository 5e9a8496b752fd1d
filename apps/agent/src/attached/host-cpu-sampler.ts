// The host's CPU busy fraction between two heartbeats, from /proc/stat.
import { readFileSync } from "node:fs";

function readCpuTimes(): { total: number; idle: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { total: fields.reduce((a, b) => a + b, 0), idle };
}

export class HostCpuSampler {
  private sample = readCpuTimes();

  /** Busy fraction since the previous call (or since construction). */
  busyFraction(): number {
    const now = readCpuTimes();
    const total = now.total - this.sample.total;
    const idle = now.idle - this.sample.idle;
    this.sample = now;
    return total > 0 ? Math.min(1, Math.max(0, 1 - idle / total)) : 0;
  }
}
