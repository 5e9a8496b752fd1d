// The production build, stamped with the hash of the sources it was built from.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sourceHash } from "./source-hash";
import { processEnvironment } from "../../src/server/env";

const hashFile = (root: string) => join(root, ".next", "packrat-source-hash");

/** The reason a build is needed, or undefined when the existing one matches the sources. */
export function buildNeeded(root: string): string | undefined {
  if (!existsSync(join(root, ".next", "BUILD_ID")) || !existsSync(hashFile(root))) return "no production build yet";
  return readFileSync(hashFile(root), "utf8").trim() === sourceHash(root)
    ? undefined
    : "source changed since the last build";
}

export function build(root: string): boolean {
  const wanted = sourceHash(root);
  const result = spawnSync(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: processEnvironment({ NEXT_TELEMETRY_DISABLED: "1" }),
  });
  if (result.status !== 0) return false;
  writeFileSync(hashFile(root), wanted);
  return true;
}
