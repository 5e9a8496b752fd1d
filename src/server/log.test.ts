import { describe, expect, it } from "vitest";
import { createLogger, requestIdFrom } from "./log";

function capture(level: "debug" | "info" | "warn" | "error") {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    write: (line) => lines.push(line),
    now: () => new Date("2026-11-29T12:00:00.000Z"),
  });
  return { logger, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>), lines };
}

describe("structured log", () => {
  it("writes one JSON object per line with time, level, message and fields", () => {
    const { logger, records, lines } = capture("info");
    logger.info("signed in", { userId: "u1" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("\n");
    expect(records()[0]).toEqual({ time: "2026-11-29T12:00:00.000Z", level: "info", msg: "signed in", userId: "u1" });
  });

  it("drops lines below LOG_LEVEL: at warn, debug and info vanish", () => {
    const { logger, records } = capture("warn");
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    expect(records().map((r) => r.level)).toEqual(["warn", "error"]);
  });

  it("a child carries the request id on every line, and fields may add to it", () => {
    const { logger, records } = capture("debug");
    const child = logger.child({ requestId: "req-7" });
    child.info("a");
    child.child({ path: "users.list" }).warn("b", { code: "FORBIDDEN" });
    expect(records()).toEqual([
      expect.objectContaining({ msg: "a", requestId: "req-7" }),
      expect.objectContaining({ msg: "b", requestId: "req-7", path: "users.list", code: "FORBIDDEN" }),
    ]);
  });

  it("turns errors into name and message (stack only at debug) and bigints into strings", () => {
    const info = capture("info");
    info.logger.error("failed", { error: new TypeError("boom"), id: 12n });
    expect(info.records()[0]).toMatchObject({ error: { name: "TypeError", message: "boom" }, id: "12" });
    expect((info.records()[0]!.error as Record<string, unknown>).stack).toBeUndefined();
    const debug = capture("debug");
    debug.logger.error("failed", { error: new Error("boom") });
    expect((debug.records()[0]!.error as Record<string, unknown>).stack).toContain("boom");
  });
});

describe("request id", () => {
  it("keeps a sane x-request-id and replaces a missing or hostile one", () => {
    expect(requestIdFrom(new Headers({ "x-request-id": "abc-123" }))).toBe("abc-123");
    const fresh = requestIdFrom(new Headers());
    expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = requestIdFrom(new Headers({ "x-request-id": 'a"} {"level":"error' }));
    expect(hostile).toMatch(/^[0-9a-f-]{36}$/);
  });
});
