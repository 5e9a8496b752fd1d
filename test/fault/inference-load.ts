// Inference load for the fault-tolerance suite, on the load generator's own runners (apps/loadgen): an open-loop
// stream at a fixed rate, every answer checked against ONNX Runtime run here on the same input (a wrong answer is
// counted apart from a failure), and a short closed loop that measures the capacity the rate is a fraction of.
import * as ort from "onnxruntime-node";
import { runClosedLoop } from "../../apps/loadgen/src/closed-loop";
import { runOpenLoop } from "../../apps/loadgen/src/open-loop";
import { classifyTransportError, type SendOutcome, type Sender } from "../../apps/loadgen/src/outcome";
import { buildSchedule } from "../../apps/loadgen/src/schedule";
import { Prng } from "@packrat/core/stats/prng";

const ROW = 3 * 32 * 32; // the tiny CNN's input row
const INPUTS = 8;
/** A request unanswered this long is lost (a hang), not merely slow. */
const LOST_AFTER_MS = 15_000;

export interface LoadFigures {
  sent: number;
  ok: number;
  /** Answered with a non-2xx status, or not at all (refused, reset), or wrongly. */
  failed: number;
  /** Never answered within LOST_AFTER_MS: a hang. */
  lost: number;
  wrong: number;
  statuses: Record<string, number>;
  transportErrors: Record<string, number>;
  /** Client-side drops (the in-flight cap reached at a request's intended time). */
  dropped: number;
  errorSamples: string[];
  ratePerS: number;
  /** Every request's outcome with its send and answer times (Date.now()), for tests that split the run at an event. */
  outcomes: Array<{ sentAt: number; doneAt: number; outcome: SendOutcome }>;
}

export class TinyCnnRequests {
  private constructor(
    readonly bodies: string[],
    readonly expected: Float32Array[],
  ) {}

  /** INPUTS distinct one-row requests and what `modelBytes` answers to each. */
  static async create(modelBytes: Uint8Array): Promise<TinyCnnRequests> {
    const session = await ort.InferenceSession.create(Buffer.from(modelBytes));
    const random = new Prng(2201);
    const bodies: string[] = [];
    const expected: Float32Array[] = [];
    for (let k = 0; k < INPUTS; k++) {
      const data = new Float32Array(ROW);
      for (let i = 0; i < ROW; i++) data[i] = random.normal() * (k + 1);
      bodies.push(
        JSON.stringify({
          inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: Array.from(data) }],
        }),
      );
      expected.push(
        (await session.run({ input: new ort.Tensor("float32", data, [1, 3, 32, 32]) })).logits!.data as Float32Array,
      );
    }
    await session.release();
    return new TinyCnnRequests(bodies, expected);
  }

  /** A loadgen Sender: request `index` carries input index mod INPUTS; a 200 with other logits is a bad response. */
  sender(url: string, model = "tiny-cnn"): Sender {
    return async (index: number): Promise<SendOutcome> => {
      const k = index % INPUTS;
      const signal = AbortSignal.timeout(LOST_AFTER_MS);
      try {
        const response = await fetch(`${url}/v2/models/${model}/infer`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: this.bodies[k],
          signal,
        });
        const text = await response.text();
        if (response.status !== 200)
          return { kind: "http_error", status: response.status, detail: `${response.status} ${text.slice(0, 200)}` };
        const output = (JSON.parse(text) as { outputs?: Array<{ data?: number[] }> }).outputs?.[0]?.data;
        const want = this.expected[k]!;
        const right =
          output?.length === want.length &&
          output.every((v, i) => Math.abs(v - want[i]!) <= 1e-5 + 1e-4 * Math.abs(want[i]!));
        return right
          ? { kind: "ok", status: 200 }
          : { kind: "bad_response", status: 200, detail: "logits differ from ONNX Runtime's" };
      } catch (error) {
        const timedOut = signal.aborted;
        const cause = (error as { cause?: unknown }).cause ?? error;
        return {
          kind: "transport_error",
          transport: classifyTransportError(cause, timedOut),
          detail: `${(cause as Error).message ?? error}`,
        };
      }
    };
  }
}

/** Requests per second the agent answers with `concurrency` clients back to back for `durationMs`. */
export async function measureCapacity(send: Sender, durationMs = 2_000, concurrency = 4): Promise<number> {
  const result = await runClosedLoop({ concurrency, send, durationMs, maxRequests: 1_000_000, warmupMs: 300 });
  return result.okPerS;
}

/** An open-loop stream at `ratePerS` until `stop()`; stop resolves once every request has its outcome. */
export function startOpenLoad(
  sender: Sender,
  ratePerS: number,
  maxInFlight = 256,
): { stop: () => Promise<LoadFigures> } {
  const abort = new AbortController();
  const outcomes: LoadFigures["outcomes"] = [];
  const send: Sender = async (index) => {
    const sentAt = Date.now();
    const outcome = await sender(index);
    outcomes.push({ sentAt, doneAt: Date.now(), outcome });
    return outcome;
  };
  const schedule = buildSchedule(
    { kind: "constant", rate: ratePerS },
    { durationMs: 120_000, seed: 22, maxRequests: 1_000_000 },
  );
  const run = runOpenLoop({ schedule, send, maxInFlight, warmupMs: 0, signal: abort.signal });
  return {
    stop: async () => {
      abort.abort();
      const result = await run;
      const c = result.measured;
      const httpFailed = Object.values(c.httpErrors).reduce((a, b) => a + b, 0);
      const transport = Object.values(c.transportErrors).reduce((a, b) => a + b, 0);
      return {
        sent: c.sent,
        ok: c.ok,
        failed: httpFailed + transport + c.badResponses,
        lost: c.transportErrors.timed_out,
        wrong: c.badResponses,
        statuses: c.httpErrors,
        transportErrors: Object.fromEntries(Object.entries(c.transportErrors).filter(([, n]) => n > 0)),
        dropped: c.dropped,
        errorSamples: result.errorSamples,
        ratePerS,
        outcomes,
      };
    },
  };
}
