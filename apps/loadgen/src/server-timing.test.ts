import { describe, expect, it } from "vitest";
import { parseServerTiming } from "./server-timing";

describe("parseServerTiming", () => {
  it("reads the agent's header into ms per phase", () => {
    expect(parseServerTiming("formation;dur=0.012, busy;dur=0.000, compute;dur=0.810")).toEqual({
      formation: 0.012,
      busy: 0,
      compute: 0.81,
    });
  });

  it("follows the W3C grammar: descriptions, quoted values, several headers; the first entry of a name wins; no dur, no entry", () => {
    expect(parseServerTiming(['db;desc="query";dur="12.5"', "cache;desc=hit", "db;dur=99", "app;dur=1e-1"])).toEqual({
      db: 12.5,
      app: 0.1,
    });
    expect(parseServerTiming(undefined)).toEqual({});
    expect(parseServerTiming("garbage;;,=;dur=")).toEqual({});
  });
});
