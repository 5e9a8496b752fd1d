import { describe, expect, it } from "vitest";
import { DEFAULT_LIVE_SOURCE, liveSourceInputSchema, parseLiveSourceParams, serializeLiveSource } from "./live-source";

describe("live source in the URL", () => {
  it("round-trips a deployment and window through the query string", () => {
    const source = { deploymentId: "cmx4x9vo600002y7dhohv71f5", windowMinutes: 60 };
    const query = serializeLiveSource(source);
    expect(query).toBe("live=cmx4x9vo600002y7dhohv71f5&liveWindow=60");
    expect(parseLiveSourceParams(Object.fromEntries(new URLSearchParams(query)))).toEqual(source);
  });

  it("writes nothing in planner mode, so planner-only links are unchanged", () => {
    expect(serializeLiveSource(DEFAULT_LIVE_SOURCE)).toBe("");
    expect(parseLiveSourceParams({})).toEqual(DEFAULT_LIVE_SOURCE);
  });

  it("falls back instead of throwing: an unknown window to 15 min, a malformed id to planner mode", () => {
    expect(parseLiveSourceParams({ live: "abc", liveWindow: "7" })).toEqual({ deploymentId: "abc", windowMinutes: 15 });
    expect(parseLiveSourceParams({ live: "abc", liveWindow: "360" })).toEqual({
      deploymentId: "abc",
      windowMinutes: 360,
    });
    expect(parseLiveSourceParams({ live: "../x?y", liveWindow: "60" })).toEqual(DEFAULT_LIVE_SOURCE);
    expect(parseLiveSourceParams({ live: "a".repeat(101) })).toEqual(DEFAULT_LIVE_SOURCE);
    // A repeated key takes its first value, as the planner fields do.
    expect(parseLiveSourceParams({ live: ["first", "second"], liveWindow: ["5", "60"] })).toEqual({
      deploymentId: "first",
      windowMinutes: 5,
    });
  });

  it("the procedures' schema refuses a window the pages do not offer, with the choices in the message", () => {
    const r = liveSourceInputSchema.safeParse({ deploymentId: "abc", windowMinutes: 7 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe("windowMinutes must be one of 5, 15, 60, 360");
    expect(liveSourceInputSchema.safeParse({ deploymentId: "abc", windowMinutes: 60 }).success).toBe(true);
  });
});
