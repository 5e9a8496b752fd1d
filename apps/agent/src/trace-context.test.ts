import { describe, expect, it } from "vitest";
import { parseTraceparent, traceResponse } from "./trace-context";

const id = "4bf92f3577b34da6a3ce929d0e0e4736";
const parent = "00f067aa0ba902b7";

describe("W3C traceparent", () => {
  it("reads the specification's example", () => {
    expect(parseTraceparent(`00-${id}-${parent}-01`)).toEqual({ traceId: id, parentId: parent, flags: "01" });
  });

  it("refuses what the specification calls invalid", () => {
    for (const bad of [
      undefined,
      "",
      `00-${id}-${parent}`,
      `00-${id.toUpperCase()}-${parent}-01`,
      `00-${"0".repeat(32)}-${parent}-01`,
      `00-${id}-${"0".repeat(16)}-01`,
      `ff-${id}-${parent}-01`,
      `00-${id}-${parent}-01-extra`,
      `00-${id.slice(1)}-${parent}-01`,
      `0x-${id}-${parent}-01`,
      [`00-${id}-${parent}-01`, `00-${id}-${parent}-01`],
    ])
      expect(parseTraceparent(bad)).toBeUndefined();
  });

  it("reads a later version's first four fields", () => {
    expect(parseTraceparent(`01-${id}-${parent}-01-future`)).toEqual({ traceId: id, parentId: parent, flags: "01" });
  });

  it("answers in the same trace with a span of its own and the caller's flags", () => {
    const response = traceResponse({ traceId: id, parentId: parent, flags: "01" });
    const parsed = parseTraceparent(response)!;
    expect(parsed.traceId).toBe(id);
    expect(parsed.flags).toBe("01");
    expect(parsed.parentId).not.toBe(parent);
    expect(traceResponse({ traceId: id, parentId: parent, flags: "00" })).not.toBe(
      traceResponse({ traceId: id, parentId: parent, flags: "00" }),
    );
  });
});
