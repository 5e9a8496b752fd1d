// Calls every procedure with generated inputs (valid-shaped but hostile, from its schema; and junk) and records
// what happened. A finding: an INTERNAL_SERVER_ERROR (or an error tRPC did not even wrap), or a refused call
// after which the database is not what it was before.
import fc from "fast-check";
import { TRPCError } from "@trpc/server";
import { changedTables, type DatabaseChecksum } from "./database-checksum";
import { arbitraryFromJsonSchema, type SchemaArbitraryOptions } from "./json-schema-arbitrary";
import type { ProcedureInput } from "./procedure-inputs";

export type InputKind = "valid-shaped" | "junk";

export interface ProcedureCounts {
  calls: number;
  ok: number;
  /** Refusals by tRPC code (BAD_REQUEST, NOT_FOUND, …). */
  byCode: Record<string, number>;
  internalErrors: number;
  /** Refused calls after which some table differed. */
  changedOnRefusal: number;
}

export interface ProcedureFinding {
  path: string;
  kind: InputKind;
  problem: "internal-error" | "database-changed";
  message: string;
  /** The input as JSON (bigints and Dates written out), cut to 500 characters. */
  input: string;
  tables?: string[];
}

export interface ProcedureFuzzReport {
  perProcedure: Record<string, ProcedureCounts>;
  findings: ProcedureFinding[];
  calls: number;
}

const deepArray = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const deepObject = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/**
 * Junk: what a client could put on the wire (JSON, and what superjson revives: undefined, bigint, Date — also
 * invalid ones —, Map, Set, NaN, ±Infinity, -0), huge and deeply nested values, and a valid-shaped input with one
 * field swapped for junk (type confusion one level down).
 */
export function junkArbitrary(validShaped: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const wire = fc.anything({
    maxDepth: 3,
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: false,
  });
  return fc.oneof(
    { weight: 3, arbitrary: wire },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>(
        undefined,
        null,
        Number.NaN,
        Infinity,
        -Infinity,
        -0,
        "",
        "x".repeat(1_000_000),
        [],
        {},
        new Date(Number.NaN),
        deepArray(10_000),
        deepObject(10_000),
        2n ** 80n,
        new Map([["id", "x"]]),
        new Set([1]),
      ),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(validShaped, wire, fc.nat()).map(([valid, junk, pick]) => {
        if (typeof valid !== "object" || valid === null || Array.isArray(valid)) return junk;
        const keys = Object.keys(valid);
        if (keys.length === 0) return { ...valid, extra: junk };
        return { ...valid, [keys[pick % keys.length]!]: junk };
      }),
    },
  );
}

/** JSON for a report: bigints as "123n", Dates as ISO (or "Invalid Date"), Maps/Sets as arrays; cut short. */
export function describeInput(input: unknown): string {
  let text: string;
  try {
    text =
      JSON.stringify(input, (_key, value: unknown) => {
        if (typeof value === "bigint") return `${value}n`;
        if (value instanceof Map) return { Map: [...value.entries()] };
        if (value instanceof Set) return { Set: [...value.values()] };
        if (typeof value === "number" && !Number.isFinite(value)) return String(value);
        return value;
      }) ?? "undefined";
  } catch (error) {
    text = `(not serializable: ${(error as Error).message})`;
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

export interface ProcedureFuzzOptions {
  procedures: ProcedureInput[];
  /** Calls `path` with `input` as the authorized user; rejects with what the procedure threw. */
  call: (path: string, input: unknown) => Promise<unknown>;
  /** A fingerprint of the database; compared around every refused call. */
  snapshot: () => Promise<DatabaseChecksum>;
  /** Before each procedure's calls (e.g. switch to a fresh copy of the fixture database). */
  prepare?: (procedure: ProcedureInput) => Promise<void>;
  validRuns: number;
  junkRuns: number;
  seed: number;
  arbitraryOptions?: SchemaArbitraryOptions;
  /** Per procedure, the tables a refusal is meant to write (a wrong password counted and audited before it is refused). */
  writesOnRefusal?: Record<string, readonly string[]>;
}

export async function runProcedureFuzz(options: ProcedureFuzzOptions): Promise<ProcedureFuzzReport> {
  const perProcedure: Record<string, ProcedureCounts> = {};
  const findings: ProcedureFinding[] = [];
  let calls = 0;
  for (const [index, procedure] of options.procedures.entries()) {
    await options.prepare?.(procedure);
    let before = await options.snapshot();
    const counts: ProcedureCounts = { calls: 0, ok: 0, byCode: {}, internalErrors: 0, changedOnRefusal: 0 };
    perProcedure[procedure.path] = counts;
    const valid = arbitraryFromJsonSchema(procedure.schema, options.arbitraryOptions);
    const seed = (options.seed + index * 7919) >>> 0;
    const inputs: Array<[InputKind, unknown]> = [
      ...fc.sample(valid, { numRuns: options.validRuns, seed }).map((v) => ["valid-shaped", v] as [InputKind, unknown]),
      ...fc
        .sample(junkArbitrary(valid), { numRuns: options.junkRuns, seed: seed + 1 })
        .map((v) => ["junk", v] as [InputKind, unknown]),
    ];
    for (const [kind, input] of inputs) {
      counts.calls++;
      calls++;
      let refused: { code: string; message: string } | undefined;
      try {
        await options.call(procedure.path, input);
        counts.ok++;
      } catch (error) {
        refused =
          error instanceof TRPCError
            ? { code: error.code, message: error.message }
            : { code: "NOT_A_TRPC_ERROR", message: String((error as Error)?.message ?? error) };
        counts.byCode[refused.code] = (counts.byCode[refused.code] ?? 0) + 1;
      }
      const after = await options.snapshot();
      if (refused) {
        if (refused.code === "INTERNAL_SERVER_ERROR" || refused.code === "NOT_A_TRPC_ERROR") {
          counts.internalErrors++;
          findings.push({
            path: procedure.path,
            kind,
            problem: "internal-error",
            message: refused.message.slice(0, 300),
            input: describeInput(input),
          });
        }
        const allowed = options.writesOnRefusal?.[procedure.path] ?? [];
        const tables = changedTables(before, after).filter((table) => !allowed.includes(table));
        if (tables.length) {
          counts.changedOnRefusal++;
          findings.push({
            path: procedure.path,
            kind,
            problem: "database-changed",
            message: `${refused.code}: ${refused.message.slice(0, 200)}`,
            input: describeInput(input),
            tables,
          });
        }
      }
      before = after;
    }
  }
  return { perProcedure, findings, calls };
}
