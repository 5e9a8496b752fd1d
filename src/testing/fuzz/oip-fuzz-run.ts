// Sends N malformed OIP requests to a live server with bounded concurrency and tallies the answers per class.
// The verdict on one answer is pure (judgeOipAnswer); the run is the only part that does I/O.
import {
  mutateOipRequest,
  OIP_FUZZ_CLASSES,
  type OipFuzzClass,
  type OipFuzzRequest,
  type OipModelSpec,
} from "./oip-mutator";
import { sendRawHttp, type RawHttpOutcome } from "./raw-http";

/** pass: a 4xx with a JSON body {"error": "..."}. Everything else is a finding. */
export type OipVerdict = "pass" | "4xx-without-json-error" | "2xx" | "5xx" | "other-status" | "transport";

export function judgeOipAnswer(outcome: RawHttpOutcome): { verdict: OipVerdict; detail: string } {
  if (outcome.kind === "transport") return { verdict: "transport", detail: outcome.detail };
  const { status, headers, body } = outcome.response;
  const text = body.subarray(0, 300).toString("utf8");
  if (status >= 500) return { verdict: "5xx", detail: `${status} ${text}` };
  if (status >= 200 && status < 300) return { verdict: "2xx", detail: `${status} ${text}` };
  if (status < 400) return { verdict: "other-status", detail: `${status} ${text}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const hasError =
    typeof parsed === "object" && parsed !== null && typeof (parsed as { error?: unknown }).error === "string";
  if (!hasError || !headers["content-type"]?.startsWith("application/json")) {
    return {
      verdict: "4xx-without-json-error",
      detail: `${status} content-type ${headers["content-type"] ?? "none"}: ${text}`,
    };
  }
  return { verdict: "pass", detail: String(status) };
}

export interface OipClassCounts {
  tried: number;
  /** Answers by status code ("400": 812, …); transport failures are not here. */
  byStatus: Record<string, number>;
  status4xx: number;
  status5xx: number;
  status2xx: number;
  /** 4xx answers whose body was not JSON with an "error" string. */
  withoutJsonError: number;
  transportErrors: number;
}

export interface OipFinding {
  cls: OipFuzzClass;
  seed: number;
  variant: string;
  verdict: OipVerdict;
  detail: string;
}

export interface OipFuzzReport {
  tried: number;
  perClass: Record<OipFuzzClass, OipClassCounts>;
  findings: OipFinding[];
}

const emptyCounts = (): OipClassCounts => ({
  tried: 0,
  byStatus: {},
  status4xx: 0,
  status5xx: 0,
  status2xx: 0,
  withoutJsonError: 0,
  transportErrors: 0,
});

/** Request i is class i mod 9 with seed (firstSeed + i) mod 2^32: any finding is replayed from its (class, seed). */
export function fuzzPlan(count: number, firstSeed: number): Array<{ cls: OipFuzzClass; seed: number }> {
  return Array.from({ length: count }, (_, i) => ({
    cls: OIP_FUZZ_CLASSES[i % OIP_FUZZ_CLASSES.length]!,
    seed: (firstSeed + i) >>> 0,
  }));
}

export async function runOipFuzz(options: {
  port: number;
  model: OipModelSpec;
  cases: Array<{ cls: OipFuzzClass; seed: number }>;
  /** Requests in flight at once. */
  concurrency: number;
}): Promise<OipFuzzReport> {
  const perClass = Object.fromEntries(OIP_FUZZ_CLASSES.map((c) => [c, emptyCounts()])) as Record<
    OipFuzzClass,
    OipClassCounts
  >;
  const findings: OipFinding[] = [];
  let next = 0;
  const one = async (request: OipFuzzRequest) => {
    const outcome = await sendRawHttp(options.port, request);
    const counts = perClass[request.cls];
    counts.tried++;
    if (outcome.kind === "response") {
      const status = outcome.response.status;
      counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
      if (status >= 400 && status < 500) counts.status4xx++;
      if (status >= 500) counts.status5xx++;
      if (status >= 200 && status < 300) counts.status2xx++;
    } else counts.transportErrors++;
    const { verdict, detail } = judgeOipAnswer(outcome);
    if (verdict === "4xx-without-json-error") counts.withoutJsonError++;
    if (verdict !== "pass")
      findings.push({ cls: request.cls, seed: request.seed, variant: request.variant, verdict, detail });
  };
  const worker = async () => {
    while (next < options.cases.length) {
      const { cls, seed } = options.cases[next++]!;
      await one(mutateOipRequest(cls, seed, options.model));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return { tried: options.cases.length, perClass, findings };
}
