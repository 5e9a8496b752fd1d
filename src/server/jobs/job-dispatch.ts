// How services hand a created job row to the runner without importing it (the runner's job kinds import the
// services). The runner started by instrumentation.ts lives on globalThis: route handlers and instrumentation do
// not share module state in Next.
import type { JobRunner } from "./job-runner";
import { log } from "@/server/log";

const globalForRunner = globalThis as unknown as { packratJobRunner?: JobRunner };

export function currentJobRunner(): JobRunner | undefined {
  return globalForRunner.packratJobRunner;
}

export function setJobRunner(runner: JobRunner | undefined): void {
  globalForRunner.packratJobRunner = runner;
}

/**
 * Sends a committed, queued job row to a worker. Without a runner in this process (a CLI, a test) the row stays
 * queued, and the next runner to start sends it.
 */
export async function dispatchJob(jobId: string, kind: string): Promise<void> {
  const runner = currentJobRunner();
  if (!runner) {
    log.warn("no job runner in this process; the job waits for one", { jobId, kind });
    return;
  }
  await runner.dispatch(jobId, kind);
}

/** Runs a scheduled task soon (e.g. artifact GC after a delete); a no-op without a runner. */
export async function triggerTask(queue: string): Promise<void> {
  await currentJobRunner()?.trigger(queue);
}
