// An agent attached to a control plane: registers, heartbeats, long-polls its desired state, fetches artifacts and
// hands generations to the serving process. It persists what it applied, so after its own restart it serves that
// before the control plane answers, and it keeps serving while the control plane is away.
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus as osCpus, freemem, hostname, totalmem } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { AGENT_PROTOCOL_VERSION, type DeploymentReport, type DesiredDeployment, type DesiredState } from "@packrat/contracts/agent-protocol";
import { DEFAULT_HEARTBEAT_INTERVAL_MS } from "@packrat/contracts/agent-timing";
import type { ServingConfig } from "../serving-config";
import type { ModelReport } from "../serving-process";
import { ServingSupervisor } from "../serving-supervisor";
import { readHostTopology } from "../topology-reader";
import { agentVersion } from "../version";
import { ArtifactCache } from "./artifact-cache";
import { ControlPlaneClient, ControlPlaneError } from "./control-plane-client";
import { AgentStateStore } from "./state-store";
import { cellReport, ProfileCancelledError, ProfileRunner } from "../profiler/profile-runner";
import type { LoadTestJobParams, PlanTrialParams, ProfileCellReport, ProfileJobParams, ProfileProbeParams } from "@packrat/contracts/agent-jobs";
import { PlanTrialRunner, TrialCancelledError } from "../trial/plan-trial-runner";
import type { HostTopology } from "@packrat/core/topology/types";
import { runLoadTest } from "./load-test-job";
import { loadAgentEnv } from "../env";

export interface AttachedAgentOptions {
  controlPlaneUrl: string;
  /** An agent token, or an enrollment token (exchanged at first registration for the agent's own). */
  token: string;
  stateDir: string;
  cacheMaxBytes: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  inferenceUrl?: string;
  /** A file holding the enrollment token, deleted once the token has been exchanged for the agent's own. */
  removeAfterEnroll?: string;
  /** Registered host name (default: the OS's); an agent token stays bound to it. */
  hostName?: string;
  env: Record<string, string | undefined>;
  log: (level: string, msg: string, extra?: Record<string, unknown>) => void;
}

function readCpuTimes(): { total: number; idle: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { total: fields.reduce((a, b) => a + b, 0), idle };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class AttachedAgent {
  private readonly store: AgentStateStore;
  private readonly cache: ArtifactCache;
  private readonly client: ControlPlaneClient;
  private readonly bootId = randomUUID();
  private supervisor?: ServingSupervisor;
  private desired: DesiredState = { revision: 0, deployments: [] };
  private applied?: DesiredState;
  /** Per deployment: the last spec that applied, and generations that failed (never retried here). */
  private lastGood = new Map<string, DesiredDeployment>();
  private failed = new Map<string, { generation: number; reason: string }>();
  private applying = new Set<string>();
  private heartbeatMs = DEFAULT_HEARTBEAT_INTERVAL_MS;
  private stopped = false;
  private cpuSample = readCpuTimes();

  constructor(private readonly options: AttachedAgentOptions) {
    this.store = new AgentStateStore(options.stateDir);
    this.cache = new ArtifactCache(join(options.stateDir, "artifacts"), options.cacheMaxBytes);
    this.client = new ControlPlaneClient(options.controlPlaneUrl, this.store.readToken() ?? options.token);
  }

  private backoff(attempt: number): number {
    const base = Math.min(this.options.reconnectMaxMs, this.options.reconnectMinMs * 2 ** attempt);
    return base / 2 + Math.random() * (base / 2); // jitter, so many agents do not reconnect in step
  }

  async start(): Promise<void> {
    // Serve what we applied last, before (and whatever) the control plane answers.
    const persisted = this.store.readDesired();
    if (persisted && persisted.deployments.every((d) => this.cache.has(d))) {
      this.options.log("info", "serving the persisted desired state", { revision: persisted.revision });
      this.desired = persisted;
      await this.apply(persisted, false);
    }
    await this.register();
    void this.heartbeatLoop();
    void this.desiredLoop();
    void this.jobLoop();
  }

  /** Claims jobs (profiling, load tests) one at a time and runs them. */
  private async jobLoop(): Promise<void> {
    const { topology } = readHostTopology();
    for (let attempt = 0; !this.stopped;) {
      let job;
      try {
        job = await this.client.nextJob();
        attempt = 0;
      } catch (error) {
        if (error instanceof ControlPlaneError && error.fatal) this.options.log("error", "job poll refused", { error: error.message });
        await sleep(this.backoff(attempt++));
        continue;
      }
      if (!job) continue;
      if (job.kind === "load_test") await this.runLoadTestJob(job.id, job.params);
      else if (job.kind === "profile_probe") await this.runProbeJob(job.id, job.params, topology);
      else if (job.kind === "plan_trial") await this.runTrialJob(job.id, job.params, topology);
      else await this.runProfileJob(job.id, job.params, topology);
    }
  }

  /** Profiling: cells stream back as they are measured; a 409 on a cell means the job was cancelled. */
  private async runProfileJob(jobId: string, params: ProfileJobParams, topology: HostTopology): Promise<void> {
    this.options.log("info", "profiling job claimed", { jobId, model: params.modelName, cells: params.threads.length * params.batches.length, alreadyDone: params.done.length });
    const runner = new ProfileRunner(topology);
    try {
      const inUse = new Set(this.desired.deployments.map((d) => d.artifactSha256));
      const modelPath = await this.cache.ensure(params, () => this.client.artifact(params.artifactSha256), inUse);
      // A 409 on a cell or a round's progress: the job was cancelled.
      const post = async (cells: ProfileCellReport[], progress?: { round: number; measuring: number }) => {
        try {
          await this.client.postCells(jobId, cells, progress);
        } catch (error) {
          if (error instanceof ControlPlaneError && error.status === 409) { runner.cancel(); throw new ProfileCancelledError(error.message); }
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
      await this.client.finishJob(jobId, "done");
      this.options.log("info", "profiling job done", { jobId });
    } catch (error) {
      if (error instanceof ProfileCancelledError) {
        this.options.log("info", "profiling job cancelled", { jobId });
        // Most cells finish only in the last rounds: what the rounds so far measured goes back as cut-short cells.
        const cut = runner.cutShortCells();
        if (cut.length) {
          await this.client.postCells(jobId, cut.map(cellReport)).then(
            () => this.options.log("info", "cut-short cells kept", { jobId, cells: cut.length }),
            (e: Error) => this.options.log("warn", "cut-short cells not kept", { jobId, error: e.message }),
          );
        }
        return;
      }
      this.options.log("error", "profiling job failed", { jobId, error: (error as Error).message });
      await this.client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }

  /** A plan trial: rounds report progress (a 409 means it was cancelled), then every plan's measurements. */
  private async runTrialJob(jobId: string, params: PlanTrialParams, topology: HostTopology): Promise<void> {
    this.options.log("info", "plan trial claimed", { jobId, model: params.modelName, plans: params.plans.length, batch: params.batch });
    const runner = new PlanTrialRunner(topology);
    try {
      const inUse = new Set(this.desired.deployments.map((d) => d.artifactSha256));
      const modelPath = await this.cache.ensure(params, () => this.client.artifact(params.artifactSha256), inUse);
      await this.client.postTrialProgress(jobId, 0, params.rounds);
      const outcome = await runner.run({ ...params, modelPath, allowSpinning: loadAgentEnv(this.options.env).AGENT_ORT_ALLOW_SPINNING }, async (round, rounds) => {
        try {
          await this.client.postTrialProgress(jobId, round, rounds);
        } catch (error) {
          if (error instanceof ControlPlaneError && error.status === 409) { runner.cancel(); throw new TrialCancelledError(error.message); }
          throw error;
        }
      });
      if (outcome.plans.every((p) => p.error)) throw new Error(outcome.plans.map((p) => `${p.key} ${p.error}`).join("; "));
      await this.client.postTrialResult(jobId, { plans: outcome.plans, stoppedEarly: outcome.stoppedEarly, durationMs: outcome.durationMs });
      this.options.log("info", "plan trial done", { jobId, seconds: Math.round(outcome.durationMs / 1000) });
    } catch (error) {
      if (error instanceof TrialCancelledError || (error instanceof ControlPlaneError && error.status === 409)) { this.options.log("info", "plan trial cancelled", { jobId }); return; }
      this.options.log("error", "plan trial failed", { jobId, error: (error as Error).message });
      await this.client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }

  /** The profile form's duration probe: one cell, a few iterations, by the same profiler as a profiling job. */
  private async runProbeJob(jobId: string, params: ProfileProbeParams, topology: HostTopology): Promise<void> {
    this.options.log("info", "duration probe claimed", { jobId, model: params.modelName });
    const runner = new ProfileRunner(topology);
    try {
      const inUse = new Set(this.desired.deployments.map((d) => d.artifactSha256));
      const modelPath = await this.cache.ensure(params, () => this.client.artifact(params.artifactSha256), inUse);
      await runner.run(
        { modelPath, threads: [params.threads], batches: [params.batch], dimensions: params.dimensions, budgetCpus: params.budgetCpus, maxRemeasures: 0, rule: { kind: "fixed", warmup: params.warmup, iterations: params.iterations } },
        async (cell) => {
          await this.client.postCells(jobId, [cellReport(cell)]);
        },
      );
      await this.client.finishJob(jobId, "done");
    } catch (error) {
      this.options.log("error", "duration probe failed", { jobId, error: (error as Error).message });
      await this.client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }

  /** A load test: the load generator against this agent's own port; its JSON report goes back as it was written. */
  private async runLoadTestJob(jobId: string, params: LoadTestJobParams): Promise<void> {
    this.options.log("info", "load test claimed", { jobId, model: params.modelName, mode: params.spec.mode });
    // The validated view, so the defaults are the env module's (AGENT_HOST, AGENT_PORT), not written again here.
    const env = loadAgentEnv(this.options.env);
    const bind = env.AGENT_HOST;
    const host = bind === "0.0.0.0" || bind === "::" ? "127.0.0.1" : bind.includes(":") ? `[${bind}]` : bind;
    try {
      const report = await runLoadTest(params, { agentUrl: `http://${host}:${this.supervisor?.port ?? env.AGENT_PORT}`, inferToken: env.AGENT_INFER_TOKEN, stateDir: this.options.stateDir });
      await this.client.postLoadTestResult(jobId, report, this.lastGood.get(params.deploymentId)?.generation);
      this.options.log("info", "load test done", { jobId });
    } catch (error) {
      this.options.log("error", "load test failed", { jobId, error: (error as Error).message });
      await this.client.finishJob(jobId, "failed", (error as Error).message).catch(() => {});
    }
  }

  private removeEnrollmentTokenFile(path: string): void {
    try {
      rmSync(path, { force: true });
      this.options.log("info", "enrollment token file removed", { path });
    } catch (error) {
      // A read-only mount (a Kubernetes Secret volume): the file stays; revoke the enrollment token or let it expire.
      this.options.log("warn", "enrollment token file not removed", { path, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
    }
  }

  private async register(): Promise<void> {
    const { topology, allowedCpus } = readHostTopology();
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const response = await this.client.register({
          protocolVersion: AGENT_PROTOCOL_VERSION, agentVersion, hostName: this.options.hostName ?? hostname(), bootId: this.bootId, topology, allowedCpus,
          cpuModel: osCpus()[0]?.model ?? "unknown", memoryBytes: totalmem(), ortVersion: ort.env.versions.common ?? "unknown",
          inferenceUrl: this.options.inferenceUrl,
        });
        if (response.agentToken) {
          this.store.writeToken(response.agentToken); // enrollment: from now on, our own token
          this.client.token = response.agentToken;
          if (this.options.removeAfterEnroll) this.removeEnrollmentTokenFile(this.options.removeAfterEnroll);
        }
        this.store.writeIdentity({ agentId: response.agentId, controlPlaneUrl: this.options.controlPlaneUrl });
        this.heartbeatMs = response.heartbeatIntervalMs;
        this.options.log("info", "registered", { agentId: response.agentId, bootId: this.bootId });
        return;
      } catch (error) {
        if (error instanceof ControlPlaneError && error.fatal) {
          this.options.log("error", "registration refused", { error: error.message });
          throw error;
        }
        const wait = this.backoff(attempt);
        this.options.log("warn", "control plane unreachable; retrying", { error: (error as Error).message, retryMs: Math.round(wait) });
        await sleep(wait);
      }
    }
  }

  private async desiredLoop(): Promise<void> {
    for (let attempt = 0; !this.stopped;) {
      try {
        const next = await this.client.desired(this.desired.revision);
        attempt = 0;
        if (next && next.revision > this.desired.revision) {
          this.desired = next;
          await this.apply(next, true);
        }
      } catch (error) {
        const wait = this.backoff(attempt++);
        if (error instanceof ControlPlaneError && error.status === 401) this.options.log("error", "agent token rejected", { error: error.message });
        await sleep(wait);
      }
    }
  }

  /** Fetches what is missing, then hands the serving process one configuration with every deployment. */
  private async apply(desired: DesiredState, fetchArtifacts: boolean): Promise<void> {
    const inUse = new Set(desired.deployments.map((d) => d.artifactSha256));
    const models: ServingConfig["models"] = [];
    for (const deployment of desired.deployments) {
      const failure = this.failed.get(deployment.deploymentId);
      // A generation that failed here is never retried by the agent: keep serving the last good one.
      const spec = failure?.generation === deployment.generation ? this.lastGood.get(deployment.deploymentId) : deployment;
      if (!spec) continue;
      try {
        const path = fetchArtifacts
          ? await this.cache.ensure(spec, () => this.client.artifact(spec.artifactSha256), inUse)
          : this.cache.pathOf(spec);
        this.applying.add(deployment.deploymentId);
        models.push({ name: spec.modelName, version: spec.version, modelPath: path, plan: spec.plan, deploymentId: spec.deploymentId, generation: spec.generation, sloDeadlineMs: spec.slo?.deadlineMs });
      } catch (error) {
        this.failed.set(deployment.deploymentId, { generation: deployment.generation, reason: `artifact: ${(error as Error).message}` });
        const good = this.lastGood.get(deployment.deploymentId);
        if (good) models.push({ name: good.modelName, version: good.version, modelPath: this.cache.pathOf(good), plan: good.plan, deploymentId: good.deploymentId, generation: good.generation });
      }
    }
    const config: ServingConfig = { generation: desired.revision || 1, models };
    const configPath = join(this.options.stateDir, "serving.json");
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const results = await this.sendToServing(config, configPath);
    for (const result of results) {
      const deployment = desired.deployments.find((d) => d.deploymentId === result.deploymentId);
      if (!deployment || !result.deploymentId) continue;
      this.applying.delete(result.deploymentId);
      if (result.outcome === "applied") {
        this.lastGood.set(result.deploymentId, deployment);
        this.failed.delete(result.deploymentId);
      } else {
        this.failed.set(result.deploymentId, { generation: result.generation, reason: result.error ?? "failed" });
      }
    }
    this.applying.clear();
    this.applied = desired;
    this.store.writeDesired(desired);
  }

  private sendToServing(config: ServingConfig, configPath: string): Promise<Array<{ deploymentId?: string; generation: number; outcome: string; error?: string }>> {
    return new Promise((resolve) => {
      if (!this.supervisor) {
        // First configuration: start the serving process with it; each model is reported by its first heartbeat.
        this.supervisor = new ServingSupervisor({ configPath, env: this.options.env, log: this.options.log });
        this.supervisor.onReady = () => resolve(config.models.map((m) => ({ deploymentId: m.deploymentId, generation: m.generation ?? 1, outcome: "applied" })));
        this.supervisor.onGiveUp = (reason) => resolve(config.models.map((m) => ({ deploymentId: m.deploymentId, generation: m.generation ?? 1, outcome: "failed", error: reason })));
        this.supervisor.start();
        return;
      }
      this.supervisor.onApplied = (result) => resolve(result.results);
      if (!this.supervisor.apply(config)) resolve([]);
    });
  }

  /** Host CPU busy fraction since the previous heartbeat, from /proc/stat. */
  private hostCpuBusy(): number {
    const now = readCpuTimes();
    const total = now.total - this.cpuSample.total;
    const idle = now.idle - this.cpuSample.idle;
    this.cpuSample = now;
    return total > 0 ? Math.min(1, Math.max(0, 1 - idle / total)) : 0;
  }

  private toReport(model: ModelReport): DeploymentReport | undefined {
    if (!model.deploymentId) return undefined;
    const failure = this.failed.get(model.deploymentId);
    const state = failure ? "failed" : this.applying.has(model.deploymentId) ? "applying" : model.state === "failed" ? "failed" : model.state === "ready" ? "serving" : "applying";
    return {
      deploymentId: model.deploymentId, observedGeneration: model.generation, state,
      failureReason: failure ? `generation ${failure.generation}: ${failure.reason}` : model.failureReason,
      intervalMs: model.stats.intervalMs, requests: model.stats.requests, rows: model.stats.rows, histograms: model.stats.histograms,
      busyMs: model.stats.busyMs,
      queueDepthRows: model.queueDepthRows, instances: model.instances, affinityOk: model.affinityOk,
      estimator: model.estimator, estimatorTimeline: model.estimatorTimeline,
      estimatorProposal: model.estimatorProposal, lastReconfiguration: model.lastReconfiguration,
    };
  }

  private async heartbeatLoop(): Promise<void> {
    while (!this.stopped) {
      await sleep(this.heartbeatMs);
      const report = await this.supervisor?.collect(2000);
      const deployments = (report?.models ?? []).map((m) => this.toReport(m)).filter((d): d is DeploymentReport => !!d);
      // Deployments we could not start at all still need their failure reported.
      for (const [deploymentId, failure] of this.failed) {
        if (!deployments.some((d) => d.deploymentId === deploymentId)) {
          deployments.push({
            deploymentId, observedGeneration: this.lastGood.get(deploymentId)?.generation ?? 0, state: "failed",
            failureReason: `generation ${failure.generation}: ${failure.reason}`, intervalMs: this.heartbeatMs,
            requests: { completed: 0, rejected: 0, withinSlo: 0 }, rows: { completed: 0, rejected: 0 }, histograms: {},
            queueDepthRows: 0, instances: [], affinityOk: true,
          });
        }
      }
      try {
        await this.client.heartbeat({
          bootId: this.bootId, revision: this.applied?.revision ?? 0,
          host: { cpuBusyFraction: this.hostCpuBusy(), memoryUsedBytes: totalmem() - freemem() },
          servingProcessRestarts: report?.restarts ?? 0, deployments,
        });
      } catch (error) {
        this.options.log("warn", "heartbeat not accepted", { error: (error as Error).message });
      }
    }
  }

  async stop(drainMs: number): Promise<void> {
    this.stopped = true;
    await this.supervisor?.stop(drainMs);
  }
}
