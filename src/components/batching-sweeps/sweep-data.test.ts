import { describe, expect, it } from "vitest";
import { gapRows, parseCandidates, sweepApprovedText, sweepConfirmText, sweepOf } from "./sweep-data";

describe("sweep candidates", () => {
  it("reads window/max batch pairs, with or without ms and spaces", () => {
    expect(parseCandidates("12/32, 2 ms / 8;0/1")).toEqual({
      ok: true,
      value: [
        { windowMs: 12, maxBatch: 32 },
        { windowMs: 2, maxBatch: 8 },
        { windowMs: 0, maxBatch: 1 },
      ],
    });
  });

  it("names what is wrong", () => {
    expect(parseCandidates("")).toMatchObject({ ok: false, error: expect.stringMatching(/at least one/) });
    expect(parseCandidates("12-32")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/"12-32" is not window\/max batch/),
    });
    expect(parseCandidates("12/0")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/max batch must be between 1 and 65,536/),
    });
    expect(parseCandidates("12/2.5")).toMatchObject({ ok: false });
    expect(parseCandidates("70000/2")).toMatchObject({ ok: false, error: expect.stringMatching(/at most 60,000 ms/) });
    expect(parseCandidates("1/2, 1/2")).toMatchObject({ ok: false, error: expect.stringMatching(/listed twice/) });
    expect(parseCandidates("0/1,0/2,0/3,0/4,0/5,0/6,0/7,0/8,0/9")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/At most 8 candidates per sweep \(9 given\)/),
    });
  });
});

describe("approving a sweep", () => {
  const sweep = {
    candidates: [
      { windowMs: 0, maxBatch: 1 },
      { windowMs: 12, maxBatch: 32 },
    ],
    durationS: 5,
    ratePerS: 20,
  };

  it("finds the sweep in a proposal's evidence, and nothing in an ordinary proposal's", () => {
    expect(sweepOf({ sweep })).toEqual(sweep);
    expect(sweepOf({ baselines: {} })).toBeNull();
    expect(sweepOf(null)).toBeNull();
  });

  it("says before approving what runs and how many pending proposals expire, and after, what did", () => {
    const text = sweepConfirmText(sweep, 2);
    expect(text).toContain("2 temporary generations (0 ms / 1, 12 ms / 32)");
    expect(text).toContain("5 s load test at 20 req/s");
    expect(text).toContain("The 2 other pending proposals for this deployment will expire");
    expect(sweepConfirmText(sweep, 0)).toContain("No other proposal for this deployment is pending.");
    expect(sweepApprovedText({ generation: 7, expiredProposals: 1 })).toBe(
      "Sweep started: its first temporary generation is 7. 1 pending proposal for this deployment expired.",
    );
  });
});

describe("measured vs model", () => {
  it("puts each measured p99 beside the model's envelope with the relative gap", () => {
    // Model envelope 10 ms, measured p99 12.5 ms: (12.5 − 10)/10 = +25%.
    const rows = gapRows(
      [{ windowMs: 2, maxBatch: 8, p99Ms: 12.5, okPerS: 19.5, offeredPerS: 20, error: null }],
      () => ({ envelopeMs: 10, throughputPerS: 800 }),
    );
    expect(rows[0]).toMatchObject({
      candidate: "2 ms / 8",
      measuredP99: "12.5 ms",
      modelEnvelope: "10 ms",
      p99Gap: "+25%",
      modelCapacity: "800 req/s",
    });
    expect(rows[0]!.measuredThroughput).toBe("19.5 req/s of 20 req/s offered");
    // Below the model: a negative gap; no model (inputs invalid): dashes.
    expect(
      gapRows([{ windowMs: 0, maxBatch: 1, p99Ms: 8, okPerS: 5, offeredPerS: 5, error: null }], () => ({
        envelopeMs: 10,
        throughputPerS: 1,
      }))[0]!.p99Gap,
    ).toBe("-20%");
    expect(
      gapRows([{ windowMs: 0, maxBatch: 1, p99Ms: 8, okPerS: 5, offeredPerS: 5, error: null }], () => null)[0],
    ).toMatchObject({ modelEnvelope: "—", p99Gap: "—" });
  });
});
