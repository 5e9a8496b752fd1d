// The jobs an attached agent runs for the control plane (profiling, duration probes, plan trials, load tests):
// claimed one at a time by long-poll, each run to its end and reported back. Serving goes on beside them.
import {
  LOAD_TEST_JOB_KIND,
  PLAN_TRIAL_JOB_KIND,
  PROFILE_PROBE_JOB_KIND,
  type LoadTestJobParams,
  type PlanTrialParams,
  type ProfileCellReport,
  type ProfileJobParams,
  type ProfileProbeParams,
} from "@packrat/contracts/agent-jobs";
import type { HostTopology } from "@packrat/core/topology/types";
import { loadAgentEnv } from "../env";
import { cellReport, ProfileCancelledError, ProfileRunner } from "../profiler/profile-runner";
import { readHostTopology } from "../topology-reader";
import { PlanTrialRunner, TrialCancelledError } from "../trial/plan-trial-runner";
import type { ArtifactCache, ArtifactRef } from "./artifact-cache";
import { ControlPlaneError, type ControlPlaneClient } from "./control-plane-client";
import { runLoadTest } from "./load-test-job";
import { sleep } from "./reconnect-backoff";

/** What the job loop needs of the attached agent it runs in. */
export interface AgentJobHost {
  client: ControlPlaneClient;
  cache: ArtifactCache;
  stateDir: string;
  env: Record<string, string | undefined>;
  log: (level: string, msg: string, extra?: Record<string, unknown>) => void;
  backoff(attempt: number): number;
  stopped(): boolean;
  /** Artifacts the deployments use (never evicted to make room for a job's). */
  artifactsInUse(): Set<string>;
  /** The serving process's port, once it runs. */
  servingPort(): number | undefined;
  /** The generation the agent last applied for a deployment. */
  appliedGeneration(deploymentId: string): number | undefined;
}

export class AgentJobLoop {
  constructor(private readonly host: AgentJobHost) {}

  /** Claims jobs one at a time and runs them, until the agent stops. */
  async run(): Promise<void> {
    const { topology } = readHostTopology();
    for (let attempt = 0; !this.host.stopped();) {
      let job;
      try {
        job = await this.host.client.nextJob();
        attempt = 0;
      } catch (error) {
        if (error instanceof ControlPlaneError && error.fatal)
          this.host.log("error", "job poll refused", { error: error.message });
        await sleep(this.host.backoff(attempt++));
        continue;
      }
      if (!job) continue;
      if (job.kind === LOAD_TEST_JOB_KIND) await this.runLoadTestJob(job.id, job.params);
      else if (job.kind === PROFILE_PROBE_JOB_KIND) await this.runProbeJob(job.id, job.params, topology);
      else if (job.kind === PLAN_TRIAL_JOB_KIND) await this.runTrialJob(job.id, job.params, topology);
      else await this.runProfileJob(job.id, job.params, topology);
    }
  }

  private modelPath(params: ArtifactRef): Promise<string> {
    return this.host.cache.ensure(
      params,
      () => this.host.client.artifact(params.artifactSha256),
      this.host.artifactsInUse(),
    );
  }

  /** Profiling: cells stream back as they are measured; a 409 on a cell means the job was cancelled. */
  private async runProfileJob(jobId: string, params: ProfileJobParams, topology: HostTopology): Promise<void> {
    const { client, log } = this.host;
    log("info", "profiling job claimed", {
      jobId,
      model: params.modelName,
      cells: params.threads.length * params.batches.length,
      alreadyDone: params.done.length,
    });
    const runner = new ProfileRunner(topology);
    try {
      const modelPath = await this.modelPath(params);
      // A 409 on a cell or a round's progress: the job was cancelled.
      const post = async (cells: ProfileCellReport[], progress?: { round: number; measuring: number }) => {
        try {
          await client.postCells(jobId, cells, progress);
        } catch (error) {
          if (error instanceof ControlPlaneError && error.status === 409) {
            runner.cancel();
            throw new ProfileCancelledError(error.message);
          }
          throw error;
        }
      };
      // Progress at most once a second (rounds of small cells take milliseconds).
      let lastProgress = 0;
      const progress = async (round: number, measuring: number) => {
        if (Date.now() - lastProgress < 1000) return;
        lastProgress = Date.now();
        await post([], { round, measuring });
      };
      await runner.run({ ...params, modelPath }, (cell) => post([cellReport(cell)]), progress);
      await client.finishJob(jobId, "done");
      log("info", "profiling job done", { jobId });
    } catch (error) {
      if (error instanceof ProfileCancelledError) {
        log("info", "profiling job cancelled", { jobId });
        // Most cells finish only in the last rounds: what the rounds so far measured goes back as cut-short cells.
        const cut = runner.cutShortCells();
        if (cut.length) {
          await client.postCells(jobId, cut.map(cellReport)).then(
            () => log("info", "cut-short cells kept", { jobId, cells: cut.length }),
            (e: Error) => log("warn", "cut-short cells not kept", { jobId, error: e.message }),
          );
        }
        return;
      }
      log("error", "profiling job failed", { jobId, error: (error as Error).message });
      await client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }

  /** A plan trial: rounds report progress (a 409 means it was cancelled), then every plan's measurements. */
  private async runTrialJob(jobId: string, params: PlanTrialParams, topology: HostTopology): Promise<void> {
    const { client, log } = this.host;
    log("info", "plan trial claimed", {
      jobId,
      model: params.modelName,
      plans: params.plans.length,
      batch: params.batch,
    });
    const runner = new PlanTrialRunner(topology);
    try {
      const modelPath = await this.modelPath(params);
      await client.postTrialProgress(jobId, 0, params.rounds);
      const outcome = await runner.run(
        { ...params, modelPath, allowSpinning: loadAgentEnv(this.host.env).AGENT_ORT_ALLOW_SPINNING },
        async (round, rounds) => {
          try {
            await client.postTrialProgress(jobId, round, rounds);
          } catch (error) {
            if (error instanceof ControlPlaneError && error.status === 409) {
              runner.cancel();
              throw new TrialCancelledError(error.message);
            }
            throw error;
          }
        },
      );
      if (outcome.plans.every((p) => p.error))
        throw new Error(outcome.plans.map((p) => `${p.key} ${p.error}`).join("; "));
      await client.postTrialResult(jobId, {
        plans: outcome.plans,
        stoppedEarly: outcome.stoppedEarly,
        durationMs: outcome.durationMs,
      });
      log("info", "plan trial done", { jobId, seconds: Math.round(outcome.durationMs / 1000) });
    } catch (error) {
      if (error instanceof TrialCancelledError || (error instanceof ControlPlaneError && error.status === 409)) {
        log("info", "plan trial cancelled", { jobId });
        return;
      }
      log("error", "plan trial failed", { jobId, error: (error as Error).message });
      await client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }

  /** The profile form's duration probe: one cell, a few iterations, by the same profiler as a profiling job. */
  private async runProbeJob(jobId: string, params: ProfileProbeParams, topology: HostTopology): Promise<void> {
    const { client, log } = this.host;
    log("info", "duration probe claimed", { jobId, model: params.modelName });
    const runner = new ProfileRunner(topology);
    try {
      const modelPath = await this.modelPath(params);
      await runner.run(
        {
          modelPath,
          threads: [params.threads],
          batches: [params.batch],
          dimensions: params.dimensions,
          budgetCpus: params.budgetCpus,
          maxRemeasures: 0,
          rule: { kind: "fixed", warmup: params.warmup, iterations: params.iterations },
        },
        async (cell) => {
          await client.postCells(jobId, [cellReport(cell)]);
        },
      );
      await client.finishJob(jobId, "done");
    } catch (error) {
      log("error", "duration probe failed", { jobId, error: (error as Error).message });
      await client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }

  /** A load test: the load generator against this agent's own port; its JSON report goes back as it was written. */
  private async runLoadTestJob(jobId: string, params: LoadTestJobParams): Promise<void> {
    const { client, log } = this.host;
    log("info", "load test claimed", { jobId, model: params.modelName, mode: params.spec.mode });
    // The validated view, so the defaults are the env module's (AGENT_HOST, AGENT_PORT), not written again here.
    const env = loadAgentEnv(this.host.env);
    const bind = env.AGENT_HOST;
    const host = bind === "0.0.0.0" || bind === "::" ? "127.0.0.1" : bind.includes(":") ? `[${bind}]` : bind;
    try {
      const report = await runLoadTest(params, {
        agentUrl: `http://${host}:${this.host.servingPort() ?? env.AGENT_PORT}`,
        inferToken: env.AGENT_INFER_TOKEN,
        stateDir: this.host.stateDir,
      });
      await client.postLoadTestResult(jobId, report, this.host.appliedGeneration(params.deploymentId));
      log("info", "load test done", { jobId });
    } catch (error) {
      log("error", "load test failed", { jobId, error: (error as Error).message });
      await client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }
}
