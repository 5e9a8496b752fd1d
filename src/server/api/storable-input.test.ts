import { describe, expect, it } from "vitest";
import { findUnstorableText, storableDate } from "./storable-input";

describe("findUnstorableText", () => {
  it("passes ordinary and exotic but storable text (emoji pairs, combining marks, RTL marks, other controls)", () => {
    expect(
      findUnstorableText({
        name: "résumé 🦀 e\u0301 \u202e \u0001\t",
        tags: ["a", "b"],
        nested: { deep: [{ x: "ok" }] },
        n: 1,
        d: new Date(0),
      }),
    ).toBeUndefined();
    expect(findUnstorableText(undefined)).toBeUndefined();
  });

  it("names the path of a NUL character and where in the string it is", () => {
    expect(findUnstorableText({ a: "fine", b: ["ok", "x\u0000y"] })).toEqual({
      path: "input.b.1",
      problem: "contains a NUL character (at 1)",
    });
  });

  it("finds lone surrogates (high or low) but not proper pairs", () => {
    expect(findUnstorableText({ name: "\udfff" })).toEqual({
      path: "input.name",
      problem: "is not well-formed Unicode (a lone surrogate)",
    });
    expect(findUnstorableText(["a\ud800"])?.path).toBe("input.0");
    expect(findUnstorableText("\ud83e\udd80")).toBeUndefined(); // 🦀 as its pair
  });

  it("checks object keys, Map keys and values, and Set members", () => {
    expect(findUnstorableText({ ["k\u0000"]: 1 })?.problem).toMatch(/key that contains a NUL/);
    expect(findUnstorableText(new Map([["id", "\u0000"]]))?.path).toBe("input.id");
    expect(findUnstorableText(new Set(["ok", "\udc00"]))?.path).toBe("input.1");
  });

  it("survives 100 000 levels of nesting and cycles (iterative, visited set)", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorableText(deep)?.problem).toMatch(/NUL/);
    const cyclic: Record<string, unknown> = { a: "ok" };
    cyclic.self = cyclic;
    expect(findUnstorableText(cyclic)).toBeUndefined();
  });
});

describe("storableDate", () => {
  it("accepts years 1–9999 and refuses what a timestamp column cannot hold, saying the range", () => {
    expect(storableDate().safeParse(new Date("2026-01-01")).success).toBe(true);
    expect(storableDate().safeParse(new Date("9999-12-31T23:59:59.999Z")).success).toBe(true);
    const tooLate = storableDate().safeParse(new Date("+184961-08-24T09:13:12.468Z"));
    expect(tooLate.success).toBe(false);
    expect(tooLate.error?.issues[0]?.message).toBe("must be between 0001-01-01 and 9999-12-31");
    expect(storableDate().safeParse(new Date("-267624-04-13T13:13:44.958Z")).success).toBe(false);
  });
});
