// Prometheus metrics of the serving process. Latencies are histograms (never averages), in seconds.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const buckets = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];

export class AgentMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: "packrat_requests_total", help: "Inference requests by model and HTTP status", labelNames: ["model", "status"], registers: [this.registry] });
  readonly rows = new Counter({ name: "packrat_rows_total", help: "Inference rows (samples) by model and HTTP status", labelNames: ["model", "status"], registers: [this.registry] });
  /** Triton's convention: inference_count / execution_count = average batch size. */
  readonly inferenceCount = new Counter({ name: "packrat_inference_count", help: "Rows executed", labelNames: ["model"], registers: [this.registry] });
  readonly executionCount = new Counter({ name: "packrat_execution_count", help: "Batches executed", labelNames: ["model"], registers: [this.registry] });
  readonly queueSeconds = new Histogram({ name: "packrat_queue_seconds", help: "Time a request waited before its batch ran (formation + busy wait)", labelNames: ["model"], buckets, registers: [this.registry] });
  readonly formationSeconds = new Histogram({ name: "packrat_formation_seconds", help: "Time a request waited for its batch to fill or time out", labelNames: ["model"], buckets, registers: [this.registry] });
  readonly busyWaitSeconds = new Histogram({ name: "packrat_busy_wait_seconds", help: "Time a formed batch waited for the instances to be free", labelNames: ["model"], buckets, registers: [this.registry] });
  readonly computeSeconds = new Histogram({ name: "packrat_compute_seconds", help: "Batch execution time across the instances (makespan)", labelNames: ["model"], buckets, registers: [this.registry] });
  readonly totalSeconds = new Histogram({ name: "packrat_request_seconds", help: "Request time from body received to response written", labelNames: ["model"], buckets, registers: [this.registry] });
  readonly queueDepth = new Gauge({ name: "packrat_queue_rows", help: "Rows waiting in the dispatcher queue", labelNames: ["model"], registers: [this.registry] });
  readonly instanceRestarts = new Counter({ name: "packrat_instance_restarts_total", help: "Instances recreated after a crash", labelNames: ["model"], registers: [this.registry] });

  /** Kept by the supervisor (connections that waited for a serving process, and those answered 503 instead). */
  readonly heldConnections: Counter;
  readonly shedConnections: Counter;

  constructor(supervisor: () => { heldConnections: number; shedConnections: number } = () => ({ heldConnections: 0, shedConnections: 0 })) {
    // Totals since the agent started, whatever serving process answers the scrape.
    this.heldConnections = new Counter({ name: "packrat_agent_held_connections_total", help: "Connections that waited while the serving process (re)started", registers: [this.registry], collect() { this.reset(); this.inc(supervisor().heldConnections); } });
    this.shedConnections = new Counter({ name: "packrat_agent_shed_connections_total", help: "Connections answered 503 because none was ready in time (wait limit or timeout) or the agent was stopping", registers: [this.registry], collect() { this.reset(); this.inc(supervisor().shedConnections); } });
    collectDefaultMetrics({ register: this.registry, prefix: "packrat_agent_" });
  }
}
