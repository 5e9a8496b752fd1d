// Prometheus metrics of the serving process, named by Prometheus's conventions: counters end in _total, durations
// are histograms (never averages) in seconds. Every per-model series carries the model's `version` (the version
// that computed the request, which differs from the configured one for a moment during a version change).
// docs/metrics.md maps each to Triton's nv_inference_* names.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const buckets = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];
const perModel = ["model", "version"] as const;
const perRequest = ["model", "version", "protocol", "status"] as const;

/** How the request came in: OIP over HTTP/REST or over gRPC. */
export type InferProtocol = "http" | "grpc";

export interface ModelLabels {
  model: string;
  version: string;
}
export interface ProtocolLabels extends ModelLabels {
  protocol: InferProtocol;
}
export interface RequestLabels extends ProtocolLabels {
  status: string;
}

/** Nested maps, so that a lookup builds no key string. */
type Tree<T> = Map<string, Map<string, T>>;

function lookUp<T>(tree: Tree<T>, a: string, b: string, build: () => T): T {
  let level = tree.get(a);
  if (!level) tree.set(a, (level = new Map()));
  let found = level.get(b);
  if (found === undefined) level.set(b, (found = build()));
  return found;
}

export class AgentMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "packrat_requests_total",
    help: "Inference requests by model, version, protocol and status (HTTP status; a gRPC call counts the HTTP status its code stands for)",
    labelNames: perRequest,
    registers: [this.registry],
  });
  readonly rows = new Counter({
    name: "packrat_rows_total",
    help: "Inference rows (samples) by model, version, protocol and status",
    labelNames: perRequest,
    registers: [this.registry],
  });
  /** Triton's convention: inferences / executions = average batch size. */
  readonly inferences = new Counter({
    name: "packrat_inferences_total",
    help: "Rows executed (Triton's nv_inference_count)",
    labelNames: perModel,
    registers: [this.registry],
  });
  readonly executions = new Counter({
    name: "packrat_executions_total",
    help: "Batches executed (Triton's nv_inference_exec_count)",
    labelNames: perModel,
    registers: [this.registry],
  });
  readonly queueSeconds = new Histogram({
    name: "packrat_queue_seconds",
    help: "Time a request waited before its batch ran (formation + busy wait)",
    labelNames: perModel,
    buckets,
    registers: [this.registry],
  });
  readonly formationSeconds = new Histogram({
    name: "packrat_formation_seconds",
    help: "Time a request waited for its batch to fill or time out",
    labelNames: perModel,
    buckets,
    registers: [this.registry],
  });
  readonly busyWaitSeconds = new Histogram({
    name: "packrat_busy_wait_seconds",
    help: "Time a formed batch waited for the instances to be free",
    labelNames: perModel,
    buckets,
    registers: [this.registry],
  });
  readonly computeSeconds = new Histogram({
    name: "packrat_compute_seconds",
    help: "Batch execution time across the instances (makespan)",
    labelNames: perModel,
    buckets,
    registers: [this.registry],
  });
  readonly totalSeconds = new Histogram({
    name: "packrat_request_seconds",
    help: "Request time from its first byte handled to its response written",
    labelNames: ["model", "version", "protocol"],
    buckets,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "packrat_queue_rows",
    help: "Rows waiting in the dispatcher queue",
    labelNames: perModel,
    registers: [this.registry],
  });
  readonly spansExported = new Counter({
    name: "packrat_trace_spans_exported_total",
    help: "Request spans sent to the OTLP collector (OTEL_EXPORTER_OTLP_ENDPOINT)",
    registers: [this.registry],
  });
  readonly spansDropped = new Counter({
    name: "packrat_trace_spans_dropped_total",
    help: "Request spans dropped: the export queue was full (the collector slow or down) or an export failed",
    registers: [this.registry],
  });
  readonly instanceRestarts = new Counter({
    name: "packrat_instance_restarts_total",
    help: "Instances recreated after a crash",
    labelNames: perModel,
    registers: [this.registry],
  });

  // Label objects, built once per series and reused by every request's accounting (a request allocates none).
  private readonly modelLabelTree: Tree<ModelLabels> = new Map();
  private readonly protocolLabelTree: Tree<Record<InferProtocol, ProtocolLabels>> = new Map();
  private readonly requestLabelTree: Tree<Record<InferProtocol, Map<number, RequestLabels>>> = new Map();

  modelLabels(model: string, version: string): ModelLabels {
    return lookUp(this.modelLabelTree, model, version, () => ({ model, version }));
  }

  protocolLabels(model: string, version: string, protocol: InferProtocol): ProtocolLabels {
    return lookUp(this.protocolLabelTree, model, version, (): Record<InferProtocol, ProtocolLabels> => ({
      http: { model, version, protocol: "http" },
      grpc: { model, version, protocol: "grpc" },
    }))[protocol];
  }

  requestLabels(model: string, version: string, protocol: InferProtocol, status: number): RequestLabels {
    const byStatus = lookUp(this.requestLabelTree, model, version, () => ({ http: new Map(), grpc: new Map() }))[
      protocol
    ];
    let labels = byStatus.get(status);
    if (!labels) byStatus.set(status, (labels = { model, version, protocol, status: String(status) }));
    return labels;
  }

  /** Kept by the supervisor (connections that waited for a serving process, and those answered 503 instead). */
  readonly heldConnections: Counter;
  readonly shedConnections: Counter;

  constructor(
    supervisor: () => { heldConnections: number; shedConnections: number } = () => ({
      heldConnections: 0,
      shedConnections: 0,
    }),
  ) {
    // Totals since the agent started, whatever serving process answers the scrape.
    this.heldConnections = new Counter({
      name: "packrat_agent_held_connections_total",
      help: "Connections that waited while the serving process (re)started",
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(supervisor().heldConnections);
      },
    });
    this.shedConnections = new Counter({
      name: "packrat_agent_shed_connections_total",
      help: "Connections answered 503 (HTTP) or closed (gRPC) because none was ready in time (wait limit or timeout) or the agent was stopping",
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(supervisor().shedConnections);
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: "packrat_agent_" });
  }
}
