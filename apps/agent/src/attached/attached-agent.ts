// An agent attached to a control plane: registers, heartbeats, long-polls its desired state, fetches artifacts and
// hands generations to the serving process. It persists what it applied, so after its own restart it serves that
// before the control plane answers, and it keeps serving while the control plane is away. The jobs it claims run
// in its job loop (agent-job-loop.ts).
import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { cpus as osCpus, freemem, hostname, totalmem } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import {
  AGENT_PROTOCOL_VERSION,
  type DeploymentReport,
  type DesiredDeployment,
  type DesiredState,
} from "@packrat/contracts/agent-protocol";
import { DeploymentEvents } from "./deployment-events";
import { MetricsAccumulator } from "./metrics-accumulator";
import { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_METRICS_INTERVAL_MS } from "@packrat/contracts/agent-timing";
import type { ServingConfig } from "../serving-config";
import type { ModelReport } from "../serving-process";
import { ServingSupervisor } from "../serving-supervisor";
import { readHostTopology } from "../topology-reader";
import { agentVersion } from "../version";
import { ArtifactCache } from "./artifact-cache";
import { AgentJobLoop } from "./agent-job-loop";
import { ControlPlaneClient, ControlPlaneError } from "./control-plane-client";
import { HostCpuSampler } from "./host-cpu-sampler";
import { reconnectBackoffMs, sleep } from "./reconnect-backoff";
import { AgentStateStore } from "./state-store";

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
  /** How often metrics are sent, whatever the control plane says (the serving process is read every heartbeat
   *  interval, events sent as they come). */
  metricsIntervalMs?: number;
  env: Record<string, string | undefined>;
  log: (level: string, msg: string, extra?: Record<string, unknown>) => void;
}

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
  private metricsMs = DEFAULT_METRICS_INTERVAL_MS;
  private stopped = false;
  private readonly hostCpu = new HostCpuSampler();
  private readonly jobs: AgentJobLoop;
  private readonly events = new DeploymentEvents();
  private readonly metrics = new MetricsAccumulator();

  constructor(private readonly options: AttachedAgentOptions) {
    this.store = new AgentStateStore(options.stateDir);
    this.cache = new ArtifactCache(join(options.stateDir, "artifacts"), options.cacheMaxBytes);
    this.client = new ControlPlaneClient(options.controlPlaneUrl, this.store.readToken() ?? options.token);
    this.jobs = new AgentJobLoop({
      client: this.client,
      cache: this.cache,
      stateDir: this.options.stateDir,
      env: this.options.env,
      log: this.options.log,
      backoff: (attempt) => this.backoff(attempt),
      stopped: () => this.stopped,
      artifactsInUse: () => new Set(this.desired.deployments.map((d) => d.artifactSha256)),
      servingPort: () => this.supervisor?.port,
      appliedGeneration: (deploymentId) => this.lastGood.get(deploymentId)?.generation,
    });
  }

  private backoff(attempt: number): number {
    return reconnectBackoffMs(attempt, this.options.reconnectMinMs, this.options.reconnectMaxMs);
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
    void this.reportLoop();
    void this.desiredLoop();
    void this.jobs.run();
  }

  private removeEnrollmentTokenFile(path: string): void {
    try {
      rmSync(path, { force: true });
      this.options.log("info", "enrollment token file removed", { path });
    } catch (error) {
      // A read-only mount (a Kubernetes Secret volume): the file stays; revoke the enrollment token or let it expire.
      this.options.log("warn", "enrollment token file not removed", {
        path,
        error: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
      });
    }
  }

  private async register(): Promise<void> {
    const { topology, allowedCpus } = readHostTopology();
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const response = await this.client.register({
          protocolVersion: AGENT_PROTOCOL_VERSION,
          agentVersion,
          hostName: this.options.hostName ?? hostname(),
          bootId: this.bootId,
          topology,
          allowedCpus,
          cpuModel: osCpus()[0]?.model ?? "unknown",
          memoryBytes: totalmem(),
          ortVersion: ort.env.versions.common ?? "unknown",
          inferenceUrl: this.options.inferenceUrl,
        });
        if (response.agentToken) {
          this.store.writeToken(response.agentToken); // enrollment: from now on, our own token
          this.client.token = response.agentToken;
          if (this.options.removeAfterEnroll) this.removeEnrollmentTokenFile(this.options.removeAfterEnroll);
        }
        this.store.writeIdentity({ agentId: response.agentId, controlPlaneUrl: this.options.controlPlaneUrl });
        this.heartbeatMs = response.heartbeatIntervalMs;
        this.metricsMs = this.options.metricsIntervalMs ?? response.metricsIntervalMs ?? DEFAULT_METRICS_INTERVAL_MS;
        this.events.forget();
        this.options.log("info", "registered", { agentId: response.agentId, bootId: this.bootId });
        return;
      } catch (error) {
        if (error instanceof ControlPlaneError && error.fatal) {
          this.options.log("error", "registration refused", { error: error.message });
          throw error;
        }
        const wait = this.backoff(attempt);
        this.options.log("warn", "control plane unreachable; retrying", {
          error: (error as Error).message,
          retryMs: Math.round(wait),
        });
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
          this.events.forget(); // what the control plane asks anew, the agent answers anew
          await this.apply(next, true);
        }
      } catch (error) {
        const wait = this.backoff(attempt++);
        if (error instanceof ControlPlaneError && error.status === 401)
          this.options.log("error", "agent token rejected", { error: error.message });
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
      const spec =
        failure?.generation === deployment.generation ? this.lastGood.get(deployment.deploymentId) : deployment;
      if (!spec) continue;
      try {
        const path = fetchArtifacts
          ? await this.cache.ensure(spec, () => this.client.artifact(spec.artifactSha256), inUse)
          : this.cache.pathOf(spec);
        this.applying.add(deployment.deploymentId);
        models.push({
          name: spec.modelName,
          version: spec.version,
          modelPath: path,
          plan: spec.plan,
          deploymentId: spec.deploymentId,
          generation: spec.generation,
          sloDeadlineMs: spec.slo?.deadlineMs,
        });
      } catch (error) {
        this.failed.set(deployment.deploymentId, {
          generation: deployment.generation,
          reason: `artifact: ${(error as Error).message}`,
        });
        const good = this.lastGood.get(deployment.deploymentId);
        if (good)
          models.push({
            name: good.modelName,
            version: good.version,
            modelPath: this.cache.pathOf(good),
            plan: good.plan,
            deploymentId: good.deploymentId,
            generation: good.generation,
          });
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

  private sendToServing(
    config: ServingConfig,
    configPath: string,
  ): Promise<Array<{ deploymentId?: string; generation: number; outcome: string; error?: string }>> {
    return new Promise((resolve) => {
      if (!this.supervisor) {
        // First configuration: start the serving process with it; each model is reported by its first heartbeat.
        this.supervisor = new ServingSupervisor({ configPath, env: this.options.env, log: this.options.log });
        this.supervisor.onReady = () =>
          resolve(
            config.models.map((m) => ({
              deploymentId: m.deploymentId,
              generation: m.generation ?? 1,
              outcome: "applied",
            })),
          );
        this.supervisor.onGiveUp = (reason) =>
          resolve(
            config.models.map((m) => ({
              deploymentId: m.deploymentId,
              generation: m.generation ?? 1,
              outcome: "failed",
              error: reason,
            })),
          );
        this.supervisor.start();
        return;
      }
      this.supervisor.onApplied = (result) => resolve(result.results);
      if (!this.supervisor.apply(config)) resolve([]);
    });
  }

  private toReport(model: ModelReport): DeploymentReport | undefined {
    if (!model.deploymentId) return undefined;
    const failure = this.failed.get(model.deploymentId);
    const state = failure
      ? "failed"
      : this.applying.has(model.deploymentId)
        ? "applying"
        : model.state === "failed"
          ? "failed"
          : model.state === "ready"
            ? "serving"
            : "applying";
    return {
      deploymentId: model.deploymentId,
      observedGeneration: model.generation,
      state,
      failureReason: failure ? `generation ${failure.generation}: ${failure.reason}` : model.failureReason,
      intervalMs: model.stats.intervalMs,
      requests: model.stats.requests,
      rows: model.stats.rows,
      histograms: model.stats.histograms,
      busyMs: model.stats.busyMs,
      queueDepthRows: model.queueDepthRows,
      instances: model.instances,
      affinityOk: model.affinityOk,
      estimator: model.estimator,
      estimatorTimeline: model.estimatorTimeline,
      estimatorProposal: model.estimatorProposal,
      lastReconfiguration: model.lastReconfiguration,
    };
  }

  /** The lease: renewed every heartbeat interval, one small message whatever the agent serves. */
  private async heartbeatLoop(): Promise<void> {
    while (!this.stopped) {
      await sleep(this.heartbeatMs);
      try {
        await this.client.heartbeat({ bootId: this.bootId, revision: this.applied?.revision ?? 0 });
      } catch (error) {
        this.options.log("warn", "heartbeat not accepted", { error: (error as Error).message });
      }
    }
  }

  /** Reads the serving process every heartbeat interval: events are sent at once, metrics every metrics interval. */
  private async reportLoop(): Promise<void> {
    let metricsDueAt = performance.now() + this.metricsMs;
    while (!this.stopped) {
      await sleep(this.heartbeatMs);
      const report = await this.supervisor?.collect(2000);
      const deployments = (report?.models ?? []).map((m) => this.toReport(m)).filter((d): d is DeploymentReport => !!d);
      // Deployments we could not start at all still need their failure reported.
      for (const [deploymentId, failure] of this.failed) {
        if (!deployments.some((d) => d.deploymentId === deploymentId)) {
          deployments.push({
            deploymentId,
            observedGeneration: this.lastGood.get(deploymentId)?.generation ?? 0,
            state: "failed",
            failureReason: `generation ${failure.generation}: ${failure.reason}`,
            intervalMs: this.heartbeatMs,
            requests: { completed: 0, rejected: 0, withinSlo: 0 },
            rows: { completed: 0, rejected: 0 },
            histograms: {},
            queueDepthRows: 0,
            instances: [],
            affinityOk: true,
          });
        }
      }
      this.events.retain(new Set(deployments.map((d) => d.deploymentId)));
      for (const d of deployments) {
        this.events.observe({
          deploymentId: d.deploymentId,
          observedGeneration: d.observedGeneration,
          state: d.state,
          ...(d.failureReason !== undefined ? { failureReason: d.failureReason } : {}),
          ...(d.estimatorProposal ? { estimatorProposal: d.estimatorProposal } : {}),
          ...(d.lastReconfiguration ? { lastReconfiguration: d.lastReconfiguration } : {}),
        });
        this.metrics.add(d);
      }
      const events = this.events.pending();
      if (events.length > 0) {
        try {
          await this.client.events({ bootId: this.bootId, deployments: events });
          this.events.delivered(events);
        } catch (error) {
          this.options.log("warn", "events not accepted; sent again with the next report", {
            error: (error as Error).message,
          });
        }
      }
      if (performance.now() < metricsDueAt) continue;
      try {
        await this.client.metrics({
          bootId: this.bootId,
          host: { cpuBusyFraction: this.hostCpu.busyFraction(), memoryUsedBytes: totalmem() - freemem() },
          servingProcessRestarts: report?.restarts ?? 0,
          deployments: this.metrics.snapshot(),
        });
        this.metrics.clear();
        metricsDueAt = performance.now() + this.metricsMs;
      } catch (error) {
        // Kept and added to: the next try sends the longer interval.
        this.options.log("warn", "metrics not accepted", { error: (error as Error).message });
      }
    }
  }

  async stop(drainMs: number): Promise<void> {
    this.stopped = true;
    await this.supervisor?.stop(drainMs);
  }
}
