import fc from "fast-check";
import { initTRPC, TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { changedTables } from "./database-checksum";
import { arbitraryFromJsonSchema } from "./json-schema-arbitrary";
import { describeInput, junkArbitrary, runProcedureFuzz } from "./procedure-fuzz";
import { procedureInputs } from "./procedure-inputs";

const t = initTRPC.create();
const router = t.router({
  health: t.procedure.query(() => "ok"),
  items: t.router({
    get: t.procedure.input(z.object({ id: z.string().min(1) })).query(({ input }) => input.id),
    create: t.procedure.input(z.object({ name: z.string().max(10), when: z.date().optional() })).mutation(() => 1),
    chained: t.procedure
      .input(z.object({ a: z.string() }))
      .input(z.object({ b: z.int().min(0).max(3) }))
      .query(() => 2),
  }),
});

describe("procedureInputs", () => {
  it("finds every procedure with input, by path, with its type and JSON Schema (chained inputs as allOf)", () => {
    const found = procedureInputs(router);
    expect(found.map((p) => [p.path, p.type])).toEqual([
      ["items.chained", "query"],
      ["items.create", "mutation"],
      ["items.get", "query"],
    ]);
    const create = found.find((p) => p.path === "items.create")!.schema as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(create.properties.when).toMatchObject({ "x-js-type": "date" });
    expect(found[0]!.schema).toMatchObject({
      allOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "integer" } } }],
    });
  });

  it("generates inputs every chained schema accepts", () => {
    const chained = procedureInputs(router).find((p) => p.path === "items.chained")!;
    for (const value of fc.sample(arbitraryFromJsonSchema(chained.schema), { numRuns: 50, seed: 3 })) {
      for (const schema of chained.zod) expect(schema.safeParse(value).success).toBe(true);
    }
  });
});

describe("junkArbitrary", () => {
  it("mixes wire junk, extremes and type confusion (a valid object with one field swapped)", () => {
    const valid = fc.record({ id: fc.constant("abc"), n: fc.constant(1) });
    const samples = fc.sample(junkArbitrary(valid), { numRuns: 400, seed: 9 });
    const isObject = (v: unknown): v is Record<string, unknown> =>
      typeof v === "object" && v !== null && !Array.isArray(v);
    const confused = samples.filter(
      (s) => isObject(s) && ("id" in s !== "n" in s || (s.id !== "abc" && s.n === 1) || (s.id === "abc" && s.n !== 1)),
    );
    expect(confused.length).toBeGreaterThan(20);
    expect(samples.some((s) => typeof s === "bigint")).toBe(true);
    expect(samples.some((s) => s === undefined)).toBe(true);
    expect(samples.some((s) => typeof s === "string" && s.length === 1_000_000)).toBe(true);
  });
});

describe("describeInput", () => {
  it("writes what JSON cannot (bigint, NaN, Map, Set) and cuts long inputs", () => {
    expect(describeInput({ a: 1n, b: Number.NaN, m: new Map([["k", 1]]), s: new Set([2]) })).toBe(
      '{"a":"1n","b":"NaN","m":{"Map":[["k",1]]},"s":{"Set":[2]}}',
    );
    expect(describeInput(undefined)).toBe("undefined");
    expect(describeInput("x".repeat(2000))).toHaveLength(501);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeInput(cyclic)).toMatch(/not serializable/);
  });
});

describe("changedTables", () => {
  it("lists tables whose fingerprint differs or that appear on one side only", () => {
    expect(
      changedTables(
        new Map([
          ["a", "1:x"],
          ["b", "2:y"],
        ]),
        new Map([
          ["a", "1:x"],
          ["b", "2:z"],
          ["c", "0:"],
        ]),
      ),
    ).toEqual(["b", "c"]);
    expect(changedTables(new Map([["a", "1:x"]]), new Map([["a", "1:x"]]))).toEqual([]);
  });
});

describe("runProcedureFuzz", () => {
  it("counts outcomes by code and reports 500s, non-tRPC errors and refusals that changed the database", async () => {
    const procedures = procedureInputs(router);
    let rows = 0;
    const report = await runProcedureFuzz({
      procedures,
      validRuns: 3,
      junkRuns: 2,
      seed: 1,
      snapshot: async () => new Map([["public.item", String(rows)]]),
      call: async (path) => {
        if (path === "items.get") throw new TRPCError({ code: "NOT_FOUND", message: "no such item" });
        if (path === "items.create") {
          rows++;
          throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "db exploded" });
        }
        throw new Error("not wrapped");
      },
    });
    expect(report.calls).toBe(15);
    expect(report.perProcedure["items.get"]).toMatchObject({
      calls: 5,
      ok: 0,
      byCode: { NOT_FOUND: 5 },
      internalErrors: 0,
      changedOnRefusal: 0,
    });
    expect(report.perProcedure["items.create"]).toMatchObject({ internalErrors: 5, changedOnRefusal: 5 });
    expect(report.perProcedure["items.chained"]).toMatchObject({ byCode: { NOT_A_TRPC_ERROR: 5 }, internalErrors: 5 });
    expect(new Set(report.findings.map((f) => `${f.path}:${f.problem}`))).toEqual(
      new Set(["items.create:internal-error", "items.create:database-changed", "items.chained:internal-error"]),
    );
    expect(report.findings.find((f) => f.problem === "database-changed")?.tables).toEqual(["public.item"]);
  });
});
