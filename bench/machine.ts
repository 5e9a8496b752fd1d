// What every result file records about where it was measured.
import { cpus, totalmem, platform, release } from "node:os";
import { readFileSync } from "node:fs";

export interface MachineInfo {
  cpuModel: string;
  logicalCpus: number;
  memoryBytes: number;
  platform: string;
  kernel: string;
  node: string;
  versions: Record<string, string>;
}

function version(pkg: string): string {
  try {
    return JSON.parse(readFileSync(`node_modules/${pkg}/package.json`, "utf8")).version;
  } catch {
    return "absent";
  }
}

export function machineInfo(): MachineInfo {
  const cpuList = cpus();
  return {
    cpuModel: cpuList[0]?.model ?? "unknown",
    logicalCpus: cpuList.length,
    memoryBytes: totalmem(),
    platform: platform(),
    kernel: release(),
    node: process.version,
    versions: Object.fromEntries(
      ["onnxruntime-node", "next", "@prisma/client", "pg", "packrat"].map((p) => [
        p,
        p === "packrat" ? JSON.parse(readFileSync("package.json", "utf8")).version : version(p),
      ]),
    ),
  };
}
