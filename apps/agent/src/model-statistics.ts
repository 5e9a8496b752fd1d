// Cumulative per-version statistics of one served model since its serving process started, kept in the shape of
// Triton's statistics extension (GET /v2/models/{m}/stats): request counts and durations by stage, inference and
// execution counts, and per batch size the time batches of that size took. Durations are integer nanoseconds.
import type { BatchRecord, RequestTiming } from "./dispatcher";

export interface Duration {
  count: number;
  ns: number;
}

const nsOf = (ms: number) => Math.max(0, Math.round(ms * 1e6));

function add(d: Duration, ms: number): void {
  d.count++;
  d.ns += nsOf(ms);
}

const zero = (): Duration => ({ count: 0, ns: 0 });

export interface SuccessPhases {
  /** Decoding the request's tensors (Triton's compute_input). */
  deserializeMs: number;
  timing: RequestTiming;
  /** Encoding the response (Triton's compute_output). */
  serializeMs: number;
  /** When the dispatcher answered (performance.now()): where compute ended; places the phases in time for spans. */
  resultAt?: number;
}

export class VersionStatistics {
  /** Milliseconds since the epoch of the last request answered (0: none yet). */
  lastInference = 0;
  inferenceCount = 0;
  executionCount = 0;
  readonly success = zero();
  readonly fail = zero();
  readonly queue = zero();
  readonly computeInput = zero();
  readonly computeInfer = zero();
  readonly computeOutput = zero();
  /** Batch size → executions of that size and their compute time. */
  readonly batches = new Map<number, Duration>();

  /** A request answered: `phases` when it succeeded, else it counts as failed. */
  request(totalMs: number, phases?: SuccessPhases): void {
    this.lastInference = Date.now();
    if (!phases) {
      add(this.fail, totalMs);
      return;
    }
    add(this.success, totalMs);
    add(this.queue, phases.timing.formationMs + phases.timing.busyWaitMs);
    add(this.computeInput, phases.deserializeMs);
    add(this.computeInfer, phases.timing.computeMs);
    add(this.computeOutput, phases.serializeMs);
  }

  /** A batch the instances executed. */
  batch(record: BatchRecord): void {
    if (!record.ok) return;
    this.executionCount++;
    this.inferenceCount += record.rows;
    let entry = this.batches.get(record.rows);
    if (!entry) this.batches.set(record.rows, (entry = zero()));
    add(entry, record.computeMs);
  }
}

/** One model's statistics, by version (a version change keeps the old version's totals beside the new one's). */
export class ModelStatistics {
  readonly byVersion = new Map<string, VersionStatistics>();

  of(version: string): VersionStatistics {
    let stats = this.byVersion.get(version);
    if (!stats) this.byVersion.set(version, (stats = new VersionStatistics()));
    return stats;
  }
}
