import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * ONNX Runtime 1.30 leaves an empty `mat-debug-<pid>.log` in the temp directory of every process that loads it
 * (TOOLCHAIN.md pitfall 9). Remove the one of a given process; nothing else.
 */
export function removeOrtDebugLog(pid: number = process.pid): void {
  for (const dir of new Set(["/tmp", tmpdir()])) rmSync(join(dir, `mat-debug-${pid}.log`), { force: true });
}
