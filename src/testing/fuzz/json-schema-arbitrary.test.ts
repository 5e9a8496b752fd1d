// The converter's promise: every value it generates from z.toJSONSchema(schema) passes schema.safeParse, and the
// values reach the edges (bounds, lengths, hostile strings). Checked on schemas shaped like the routers' inputs.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { arbitraryFromJsonSchema, codePoints, SchemaConversionError, type JsonSchema } from "./json-schema-arbitrary";

const toJson = (schema: z.ZodType) =>
  z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      if ((ctx.zodSchema as unknown as { _zod: { def: { type: string } } })._zod.def.type === "date")
        ctx.jsonSchema["x-js-type"] = "date";
    },
  }) as JsonSchema;

const role = z.enum(["ml_engineer", "sre", "manager", "admin"]);
const catalog: Record<string, z.ZodType> = {
  "users.create-like": z.object({
    email: z.email(),
    name: z.string().min(1).max(200),
    role,
    password: z.string().min(12).max(128),
  }),
  "optional fields and an int range": z.object({
    actor: z.string().max(200).optional(),
    before: z
      .string()
      .regex(/^\d{1,19}$/)
      .optional(),
    limit: z.number().int().min(1).max(200).optional(),
  }),
  "nullable numbers with exclusive bounds": z.object({
    deadlineMs: z.number().positive().max(3_600_000).nullable(),
    quantile: z.number().gt(0).lt(1).nullable(),
    ttftMs: z.number().positive().nullable().default(null),
  }),
  "int arrays with item limits": z.object({
    cpus: z.array(z.number().int().min(0).max(65535)).min(1).max(4096),
    threads: z.array(z.int().min(1).max(1024)).min(1).max(8),
  }),
  "record with key rules": z.object({
    dimensions: z.record(z.string().max(64), z.number().int().min(1).max(1_000_000)).optional(),
  }),
  "nested strict object in an array": z.object({
    checks: z.array(z.strictObject({ id: z.string().max(40), status: z.enum(["pass", "fail"]) })).max(12),
  }),
  "dates (z.date and z.coerce.date)": z.object({ from: z.date().optional(), expiresAt: z.coerce.date().optional() }),
  "union, literal, tuple, discriminated union": z.object({
    u: z.union([z.string().length(3), z.number().int().multipleOf(5)]),
    l: z.literal("fixed"),
    t: z.tuple([z.string(), z.boolean()]),
    d: z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("a"), n: z.int().min(0).max(9) }),
      z.object({ kind: z.literal("b") }),
    ]),
  }),
  "ids and formats": z.object({
    id: z.uuid(),
    c: z.cuid(),
    when: z.iso.datetime(),
    big: z
      .int()
      .min(0)
      .max(2 ** 40),
    seed: z.int().min(0).max(4294967295).optional(),
  }),
  "intersection of objects": z.intersection(
    z.object({ a: z.string().min(1) }),
    z.object({ b: z.number().min(0).max(1) }),
  ),
  "top-level scalar": z.number().int().min(-3).max(3),
};

describe("arbitraryFromJsonSchema", () => {
  for (const [name, schema] of Object.entries(catalog)) {
    it(`generates only values zod accepts: ${name} (150 runs)`, () => {
      const arbitrary = arbitraryFromJsonSchema(toJson(schema));
      fc.assert(
        fc.property(arbitrary, (value) => {
          const result = schema.safeParse(value);
          if (!result.success) throw new Error(`${JSON.stringify(value)}: ${result.error.message}`);
        }),
        { numRuns: 150, seed: 23 },
      );
    });
  }

  it("reaches the edges: both integer bounds, empty and full strings, hostile text, extra keys on open objects", () => {
    const values = fc.sample(
      arbitraryFromJsonSchema(toJson(z.object({ n: z.int().min(1).max(200), s: z.string().max(10) }))),
      { numRuns: 400, seed: 5 },
    ) as Array<Record<string, unknown>>;
    const ns = values.map((v) => v.n as number);
    expect(ns).toContain(1);
    expect(ns).toContain(200);
    const lengths = values.map((v) => codePoints(v.s as string));
    expect(lengths).toContain(0);
    expect(lengths).toContain(10);
    expect(values.some((v) => /[^\x20-\x7e]/.test(v.s as string))).toBe(true); // beyond printable ASCII
    expect(values.some((v) => Object.keys(v).some((k) => k !== "n" && k !== "s"))).toBe(true); // z.object strips them
    expect(values.some((v) => Object.hasOwn(v, "__proto__"))).toBe(true);
  });

  it("uses a custom string source where asked (ids from a database)", () => {
    const arbitrary = arbitraryFromJsonSchema(toJson(z.object({ userId: z.string().min(1), name: z.string() })), {
      stringAt: (path) => (path.at(-1)?.endsWith("Id") ? fc.constantFrom("u1", "u2") : undefined),
    });
    for (const v of fc.sample(arbitrary, { numRuns: 50, seed: 1 }) as Array<{ userId: string }>)
      expect(["u1", "u2"]).toContain(v.userId);
  });

  it("refuses, naming the keyword, what it cannot honour (instead of generating values the schema rejects)", () => {
    expect(() => arbitraryFromJsonSchema({ type: "string", not: { const: "x" } })).toThrow(SchemaConversionError);
    expect(() =>
      arbitraryFromJsonSchema({ type: "object", properties: { a: { type: "string", contentEncoding: "base64" } } }),
    ).toThrow(/a\.contentEncoding/);
    expect(() => arbitraryFromJsonSchema({ type: "string", format: "ipv6" })).toThrow(/format "ipv6"/);
    expect(() => arbitraryFromJsonSchema({ type: "integer", minimum: 5, maximum: 4 })).toThrow(/no integer/);
    expect(() => arbitraryFromJsonSchema({ type: "number", exclusiveMinimum: 1, maximum: 1 })).toThrow(/no number/);
    expect(() => arbitraryFromJsonSchema({ $ref: "#/$defs/missing" })).toThrow(/cannot resolve/);
    expect(() => arbitraryFromJsonSchema(false)).toThrow(/admits no value/);
  });

  it("follows $ref into $defs (zod's output for reused schemas)", () => {
    const schema: JsonSchema = {
      $defs: { Id: { type: "string", minLength: 2, maxLength: 2 } },
      type: "object",
      properties: { a: { $ref: "#/$defs/Id" } },
      required: ["a"],
      additionalProperties: false,
    };
    for (const v of fc.sample(arbitraryFromJsonSchema(schema), { numRuns: 30, seed: 2 }) as Array<{ a: string }>)
      expect(codePoints(v.a)).toBe(2);
  });
});
