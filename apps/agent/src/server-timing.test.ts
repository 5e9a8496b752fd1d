import { describe, expect, it } from "vitest";
import { serverTiming } from "./server-timing";

describe("Server-Timing of a success", () => {
  it("names the dispatcher's phases and, when the instance reported it, its session.run alone", () => {
    const t = { formationMs: 0.01, busyWaitMs: 0, computeMs: 0.4321, batchRows: 1 };
    expect(serverTiming(t)).toBe("formation;dur=0.010, busy;dur=0.000, compute;dur=0.432");
    expect(serverTiming({ ...t, runMs: 0.25 })).toBe(
      "formation;dur=0.010, busy;dur=0.000, compute;dur=0.432, run;dur=0.250",
    );
  });
});
