import { describe, expect, it } from "vitest";
import { fuzzPlan, judgeOipAnswer } from "./oip-fuzz-run";
import { OIP_FUZZ_CLASSES } from "./oip-mutator";
import type { RawHttpResponse } from "./raw-http";

const answer = (
  status: number,
  body: string,
  contentType = "application/json",
): { kind: "response"; response: RawHttpResponse } => ({
  kind: "response",
  response: { status, headers: contentType ? { "content-type": contentType } : {}, body: Buffer.from(body) },
});

describe("judgeOipAnswer", () => {
  it("passes only a 4xx whose JSON body has an error string", () => {
    expect(judgeOipAnswer(answer(400, '{"error":"bad"}')).verdict).toBe("pass");
    expect(judgeOipAnswer(answer(415, '{"error":"type"}', "application/json; charset=utf-8")).verdict).toBe("pass");
  });

  it("names every other outcome", () => {
    expect(judgeOipAnswer(answer(400, "", "")).verdict).toBe("4xx-without-json-error");
    expect(judgeOipAnswer(answer(400, '{"message":"no error field"}')).verdict).toBe("4xx-without-json-error");
    expect(judgeOipAnswer(answer(400, '{"error":42}')).verdict).toBe("4xx-without-json-error");
    expect(judgeOipAnswer(answer(400, '{"error":"x"}', "text/plain")).verdict).toBe("4xx-without-json-error");
    expect(judgeOipAnswer(answer(200, "{}")).verdict).toBe("2xx");
    expect(judgeOipAnswer(answer(500, '{"error":"internal"}')).verdict).toBe("5xx");
    expect(judgeOipAnswer(answer(503, '{"error":"busy"}')).verdict).toBe("5xx");
    expect(judgeOipAnswer(answer(301, "")).verdict).toBe("other-status");
    expect(judgeOipAnswer({ kind: "transport", detail: "ECONNRESET" })).toEqual({
      verdict: "transport",
      detail: "ECONNRESET",
    });
  });
});

describe("fuzzPlan", () => {
  it("goes round the nine classes with consecutive seeds, wrapping at 2^32", () => {
    const plan = fuzzPlan(20, 4294967290);
    expect(plan.map((p) => p.cls)).toEqual([
      ...OIP_FUZZ_CLASSES,
      ...OIP_FUZZ_CLASSES,
      OIP_FUZZ_CLASSES[0],
      OIP_FUZZ_CLASSES[1],
    ]);
    expect(plan.slice(4, 8).map((p) => p.seed)).toEqual([4294967294, 4294967295, 0, 1]);
    // 10,000 requests: 1,112 of the first class, 1,111 of each other (10,000 = 9·1,111 + 1).
    const counts = new Map<string, number>();
    for (const p of fuzzPlan(10_000, 1)) counts.set(p.cls, (counts.get(p.cls) ?? 0) + 1);
    expect([...counts.values()]).toEqual([1112, 1111, 1111, 1111, 1111, 1111, 1111, 1111, 1111]);
  });
});
