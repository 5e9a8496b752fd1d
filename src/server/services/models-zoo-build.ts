// Builds a zoo model in a child process (zoo-build-child.ts, run through tsx from the project root) and streams its
// bytes straight into the artifact store's staging, hashed on the way: the file is never held whole in this process.
import { spawn } from "node:child_process";
import { projectFile } from "@/lib/project-file";
import type { ArtifactStore, StagedArtifact } from "@/server/artifacts/artifact-store";
import { processEnvironment } from "@/server/env";

let childScript: string | undefined;
const buildChildScript = () =>
  (childScript ??= projectFile(
    "src/server/jobs/zoo-build-child.ts",
    () => new URL("../jobs/zoo-build-child.ts", import.meta.url),
  ));

export class ZooBuildError extends Error {
  readonly code = "ZOO_BUILD_FAILED";
  readonly parameter = "zooName";
  constructor(message: string) {
    super(message);
    this.name = "ZooBuildError";
  }
}

export async function buildZooModelInto(
  store: ArtifactStore,
  zooName: string,
  seed: number,
  options: { maxBytes: number; timeoutMs: number },
): Promise<StagedArtifact> {
  const child = spawn(process.execPath, ["--import", "tsx", buildChildScript(), zooName, String(seed)], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
    env: processEnvironment({ NODE_OPTIONS: "" }),
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, options.timeoutMs);
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => resolve(code));
    child.on("error", (error) => {
      stderr += error.message;
      resolve(null);
    });
  });
  let staged: StagedArtifact | undefined;
  try {
    staged = await store.stage(child.stdout, options.maxBytes);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    clearTimeout(timer);
    throw new ZooBuildError(
      `building ${zooName} failed: ${timedOut ? `it took longer than ${options.timeoutMs} ms` : (error as Error).message}`,
    );
  }
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0 || timedOut) {
    await store.discard(staged);
    throw new ZooBuildError(
      `building ${zooName} failed (${timedOut ? `stopped after ${options.timeoutMs} ms` : `exit ${code}`})${stderr.trim() ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`,
    );
  }
  return staged;
}
