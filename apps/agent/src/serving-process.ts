// The serving process: HTTP server, dispatchers and instance threads. The supervisor starts it, restarts it if it
// dies, and it exits when the supervisor goes away. It does not listen: the supervisor owns the port and hands it
// each connection once this process says it is ready. SIGTERM: answer 503, finish what is queued, exit.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket } from "node:net";
import { loadAgentEnv, AgentEnvError } from "./env";
import { AgentMetrics } from "./metrics";
import { SpanExporter } from "./span-export";
import { createOipServer } from "./oip-server";
import { createOipGrpcServer } from "./oip-grpc-server";
import { ServerCredentials } from "@grpc/grpc-js";
import { readModelMetadata, ServedModel, type ReconfigurationReport } from "./served-model";
import type { IntervalSnapshot } from "./interval-stats";
import type { EstimatorDecision, EstimatorState } from "@packrat/core/estimator/types";
import { servingConfigSchema } from "./serving-config";
import { readHostTopology } from "./topology-reader";
import { agentVersion } from "./version";

export type ServingToSupervisor =
  | { kind: "ready"; startMs: number }
  | { kind: "applied"; generation: number; outcome: "applied" | "failed"; results: ApplyResult[]; error?: string }
  | { kind: "report"; requestId: number; models: ModelReport[]; restarts: number }
  | { kind: "failed"; message: string }
  /** The connection of that hand-over is this process's now (sent before it reads a byte of it). */
  | { kind: "took"; id: number }
  /** Not ready for it: the supervisor keeps its copy, unread, for the next serving process. */
  | { kind: "returned"; id: number };

export type SupervisorToServing =
  | {
      kind: "restart-stats";
      restarts: number;
      lastRestartGapMs?: number;
      lastRestartHeldConnections?: number;
      heldConnections: number;
      shedConnections: number;
    }
  /** A connection the supervisor accepted (unread), with its socket as the message's handle; answered by "took". */
  | { kind: "connection"; id: number; protocol?: "grpc" }
  | { kind: "apply"; config: unknown }
  | { kind: "collect"; requestId: number };

export interface ApplyResult {
  name: string;
  deploymentId?: string;
  generation: number;
  outcome: "applied" | "failed";
  error?: string;
  report?: ReconfigurationReport;
}

/** What the heartbeat carries per model (the supervisor maps it onto the protocol). */
export interface ModelReport {
  name: string;
  deploymentId?: string;
  generation: number;
  state: ServedModel["state"];
  failureReason?: string;
  stats: IntervalSnapshot;
  queueDepthRows: number;
  instances: Array<{ id: number; threads: number; batch: number; state: string; cpus: number[]; affinityOk: boolean }>;
  affinityOk: boolean;
  estimator: EstimatorState;
  /** The estimator's decisions since the previous report. */
  estimatorTimeline: EstimatorDecision[];
  estimatorProposal?: { batchSize: number; decision: EstimatorDecision; timeline: EstimatorDecision[] };
  lastReconfiguration?: ReconfigurationReport;
}

// What the supervisor knows about this process's predecessors and the connections it held (we report it).
const restartStats: Omit<Extract<SupervisorToServing, { kind: "restart-stats" }>, "kind"> = {
  restarts: 0,
  heldConnections: 0,
  shedConnections: 0,
};
let takeConnection: ((socket: Socket, protocol: "http" | "grpc") => void) | undefined;
let dieOnConnection: (() => boolean) | undefined;
let applyConfig: ((config: unknown) => Promise<void>) | undefined;
let collect: ((requestId: number) => void) | undefined;
// Applies run one after another: a generation arriving mid-switch waits for the switch to finish.
let applying: Promise<void> = Promise.resolve();
process.on("message", (message: SupervisorToServing, socket?: Socket) => {
  if (message.kind === "connection") {
    if (dieOnConnection?.()) process.exit(1);
    // "took" goes out before this process reads a byte: until the supervisor hears it, the supervisor's copy of the
    // socket is still unread, and if this process dies first the connection goes, whole, to the next one.
    if (!takeConnection) {
      tell({ kind: "returned", id: message.id });
      socket?.destroy();
      return;
    }
    tell({ kind: "took", id: message.id });
    // The socket may be gone already (the client closed it while it was being handed over).
    if (socket) takeConnection(socket, message.protocol ?? "http");
  }
  if (message.kind === "restart-stats") {
    const { kind: _, ...stats } = message;
    Object.assign(restartStats, stats);
  }
  if (message.kind === "apply") applying = applying.then(() => applyConfig?.(message.config));
  if (message.kind === "collect") collect?.(message.requestId);
});

const tell = (message: ServingToSupervisor) => process.send?.(message);
const log = (level: string, msg: string, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ time: new Date().toISOString(), level, component: "agent-serving", msg, ...extra }));

// ORT leaves an empty /tmp/mat-debug-<pid>.log per process (TOOLCHAIN.md §9).
process.on("exit", () => rmSync(join(tmpdir(), `mat-debug-${process.pid}.log`), { force: true }));
if (process.connected) process.on("disconnect", () => process.exit(0));

async function main(): Promise<void> {
  const started = performance.now();
  const env = loadAgentEnv();
  const configPath = process.argv[2];
  if (!configPath) throw new Error("usage: serving-process <config.json>");
  const config = servingConfigSchema.parse(JSON.parse(readFileSync(configPath, "utf8")));
  const { topology } = readHostTopology();
  const mark = env.AGENT_FAULT_INJECTION ? env.AGENT_FAULT_EXIT_ON_CONNECTION_MARK : undefined;
  if (mark)
    dieOnConnection = () => {
      if (existsSync(mark)) return false;
      writeFileSync(mark, String(process.pid));
      return true;
    };
  const metrics = new AgentMetrics(() => restartStats);
  const models = new Map<string, ServedModel>();
  let accepting = false;
  let exportErrorLogged = false;
  const spans =
    env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? undefined
      : new SpanExporter({
          endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
          serviceName: env.OTEL_SERVICE_NAME,
          serviceVersion: agentVersion,
          onExported: (n) => {
            metrics.spansExported.inc(n);
            exportErrorLogged = false;
          },
          onDropped: (n) => metrics.spansDropped.inc(n),
          // Once per outage, not once per batch.
          onError: (message) => {
            if (!exportErrorLogged) {
              exportErrorLogged = true;
              log("warn", "span export failed", { error: message });
            }
          },
        });

  const server = createOipServer({
    models: () => models,
    metrics,
    maxBodyBytes: env.AGENT_MAX_BODY_BYTES,
    maxBodyBytesInFlight: env.AGENT_MAX_BODY_BYTES_IN_FLIGHT,
    maxRequestRows: env.AGENT_MAX_QUEUE,
    inferToken: env.AGENT_INFER_TOKEN,
    metricsToken: env.AGENT_METRICS_TOKEN,
    spans,
    faultInjection: env.AGENT_FAULT_INJECTION,
    accepting: () => accepting,
    version: agentVersion,
    status: () => ({
      version: agentVersion,
      pid: process.pid,
      servingProcessRestarts: restartStats.restarts,
      lastRestartGapMs: restartStats.lastRestartGapMs ?? null,
      lastRestartHeldConnections: restartStats.lastRestartHeldConnections ?? null,
      heldConnections: restartStats.heldConnections,
      shedConnections: restartStats.shedConnections,
      models: [...models.values()].map((m) => m.status()),
    }),
  });

  // OIP over gRPC on the same models; its connections come from the supervisor's gRPC port, through the injector.
  const grpcServer =
    env.AGENT_GRPC_PORT === undefined
      ? undefined
      : createOipGrpcServer({
          models: () => models,
          metrics,
          maxMessageBytes: env.AGENT_MAX_BODY_BYTES,
          inferToken: env.AGENT_INFER_TOKEN,
          faultInjection: env.AGENT_FAULT_INJECTION,
          accepting: () => accepting,
          version: agentVersion,
          spans,
        });
  const grpcConnections = grpcServer?.createConnectionInjector(ServerCredentials.createInsecure());

  const makeModel = async (spec: (typeof config.models)[number], generation: number) => {
    const metadata = await readModelMetadata(spec.name, spec.version, spec.modelPath);
    const model = new ServedModel(
      {
        name: spec.name,
        version: spec.version,
        modelPath: spec.modelPath,
        plan: spec.plan,
        topology,
        maxQueueRows: env.AGENT_MAX_QUEUE,
        allowSpinning: env.AGENT_ORT_ALLOW_SPINNING,
        faultInjection: env.AGENT_FAULT_INJECTION,
        restartBackoffMs: env.AGENT_INSTANCE_RESTART_BACKOFF_MS,
        warmupIterations: env.AGENT_WARMUP_ITERATIONS,
        estimator: {
          alpha: env.ESTIMATOR_ALPHA,
          ringSize: env.ESTIMATOR_RING_SIZE,
          sampleIntervalMs: env.ESTIMATOR_SAMPLE_INTERVAL_MS,
          reconfigurationTimeoutMs: env.ESTIMATOR_DECISION_INTERVAL_MS,
          minDwellMs: env.ESTIMATOR_MIN_DWELL_MS,
        },
        onBatch: (name, record) => {
          if (!record.ok) return;
          const labels = metrics.modelLabels(name, record.version ?? model.options.version);
          metrics.inferences.inc(labels, record.rows);
          metrics.executions.inc(labels);
          metrics.computeSeconds.observe(labels, record.computeMs / 1000);
        },
        onInstanceRestart: (name) => metrics.instanceRestarts.inc({ model: name, version: model.options.version }),
      },
      metadata,
    );
    model.generation = generation;
    model.deploymentId = spec.deploymentId;
    if (spec.sloDeadlineMs !== undefined) model.intervalStats.sloDeadlineMs = spec.sloDeadlineMs;
    models.set(spec.name, model);
    try {
      await model.start();
    } catch (error) {
      model.state = "failed";
      model.failureReason = (error as Error).message;
      throw error;
    }
    const bad = model.affinity().flatMap((a) => a.threads.filter((t) => !t.ok));
    if (bad.length) log("error", "thread affinity differs from the plan", { model: spec.name, threads: bad });
    log("info", "model ready", {
      model: spec.name,
      generation,
      instances: model.instances.map((i) => ({
        cpus: i.spec.coreCpus.flat(),
        threads: i.spec.threads,
        batch: i.spec.batch,
        ...i.timeline,
      })),
    });
    return model;
  };
  for (const spec of config.models) {
    try {
      await makeModel(spec, spec.generation ?? config.generation);
    } catch (error) {
      // One model that cannot start must not take the others down: it is reported failed.
      log("error", "model failed to start", { model: spec.name, error: (error as Error).message });
    }
  }

  collect = (requestId) => {
    const reports: ModelReport[] = [...models.values()].map((m) => {
      const proposal = m.estimator.proposal;
      m.estimator.proposal = undefined;
      const affinity = m.affinity();
      return {
        name: m.options.name,
        deploymentId: m.deploymentId,
        generation: m.generation,
        state: m.state,
        failureReason: m.failureReason,
        stats: m.intervalStats.take(),
        queueDepthRows: m.dispatcher.queueDepthRows,
        instances: m.instances.map((i) => ({
          id: i.spec.id,
          threads: i.spec.threads,
          batch: i.spec.batch,
          state: i.state,
          cpus: i.spec.coreCpus.flat(),
          affinityOk: (affinity.find((a) => a.instance === i.spec.id)?.threads ?? []).every((t) => t.ok),
        })),
        affinityOk: affinity.every((a) => a.threads.every((t) => t.ok)),
        estimator: m.estimator.state,
        estimatorTimeline: m.estimator.takeNewDecisions(),
        estimatorProposal: proposal
          ? { batchSize: proposal.batchSize, decision: proposal.decision, timeline: proposal.timeline }
          : undefined,
        lastReconfiguration: m.lastReconfiguration,
      };
    });
    tell({ kind: "report", requestId, models: reports, restarts: restartStats.restarts });
  };

  // A new generation while serving: reconfigure models in place, start new ones, drain and stop removed ones.
  applyConfig = async (raw) => {
    const next = servingConfigSchema.parse(raw);
    const results: ApplyResult[] = [];
    for (const spec of next.models) {
      const generation = spec.generation ?? next.generation;
      const model = models.get(spec.name);
      try {
        if (!model || (model.state === "failed" && model.generation !== generation)) {
          if (model) {
            models.delete(spec.name);
            await model.stop(0);
          }
          await makeModel(spec, generation);
          results.push({ name: spec.name, deploymentId: spec.deploymentId, generation, outcome: "applied" });
          continue;
        }
        // The SLO can change without a new generation (the model's owner set it): count against the new one.
        model.intervalStats.sloDeadlineMs = spec.sloDeadlineMs;
        if (model.generation === generation) continue; // already there (idempotent)
        model.deploymentId = spec.deploymentId;
        const newModel =
          spec.modelPath !== model.options.modelPath || spec.version !== model.options.version
            ? {
                modelPath: spec.modelPath,
                version: spec.version,
                metadata: await readModelMetadata(spec.name, spec.version, spec.modelPath),
              }
            : undefined;
        const report = await model.reconfigure(spec.plan, generation, newModel);
        log(report.outcome === "applied" ? "info" : "error", "reconfiguration", { model: spec.name, ...report });
        results.push({
          name: spec.name,
          deploymentId: spec.deploymentId,
          generation,
          outcome: report.outcome,
          error: report.error,
          report,
        });
      } catch (error) {
        results.push({
          name: spec.name,
          deploymentId: spec.deploymentId,
          generation,
          outcome: "failed",
          error: (error as Error).message,
        });
      }
    }
    for (const [name, model] of models) {
      if (!next.models.some((m) => m.name === name)) {
        models.delete(name);
        await model.stop(env.AGENT_DRAIN_TIMEOUT_MS);
      }
    }
    const failed = results.find((r) => r.outcome === "failed");
    tell({
      kind: "applied",
      generation: next.generation,
      outcome: failed ? "failed" : "applied",
      results,
      error: failed?.error,
    });
  };

  // The server never listens, but its connection tracking (header and request timeouts, closeAllConnections) is
  // set up on "listening": start it as if it had.
  server.emit("listening");
  takeConnection = (socket, protocol) => {
    if (protocol === "grpc") {
      // HTTP/2 frames its own reading: the session resumes the socket itself.
      if (grpcConnections) grpcConnections.injectConnection(socket);
      else socket.destroy();
      return;
    }
    server.emit("connection", socket);
    socket.resume();
  };
  accepting = true;
  log("info", "serving", { models: [...models.keys()] });
  tell({ kind: "ready", startMs: performance.now() - started });

  let stopping = false;
  process.on("SIGTERM", async () => {
    if (stopping) return;
    stopping = true;
    accepting = false; // readiness goes 503 at once; queued work still finishes
    log("info", "draining", { queuedRows: [...models.values()].reduce((s, m) => s + m.dispatcher.queueDepthRows, 0) });
    await Promise.all([...models.values()].map((m) => m.stop(env.AGENT_DRAIN_TIMEOUT_MS)));
    server.close();
    server.closeAllConnections();
    // gRPC answers are HTTP/2 frames still on their way: GOAWAY, let the calls' streams end (briefly), then close.
    if (grpcServer) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        grpcServer.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      grpcConnections?.destroy();
      grpcServer.forceShutdown();
    }
    // The last spans, briefly: a collector that is down does not hold the exit up.
    if (spans) await Promise.race([spans.close(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    process.exit(0);
  });
}

main().catch((error: Error) => {
  const message = error instanceof AgentEnvError ? error.message : `${error.message}`;
  log("error", "serving process failed to start", { error: message });
  tell({ kind: "failed", message });
  setTimeout(() => process.exit(1), 50);
});
