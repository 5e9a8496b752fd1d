// Every tRPC procedure's input schema, as JSON Schema: read from the router definition (each procedure's
// `_def.inputs`, the zod schemas given to `.input()`), converted with z.toJSONSchema on the input side.
import { z } from "zod";
import type { JsonSchema } from "./json-schema-arbitrary";

export interface ProcedureInput {
  path: string;
  type: "query" | "mutation" | "subscription";
  /** The zod schemas of `.input()` (several when chained; a value must satisfy all of them). */
  zod: z.ZodType[];
  schema: JsonSchema;
}

interface RouterLike {
  _def: { procedures: Record<string, unknown> };
}
interface ProcedureDef {
  _def: { type: ProcedureInput["type"]; inputs: unknown[] };
}

/** zod → JSON Schema for generating inputs: z.date() (no JSON form) is marked so the converter makes Dates. */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      const def = (ctx.zodSchema as unknown as { _zod: { def: { type: string } } })._zod.def;
      if (def.type === "date") ctx.jsonSchema["x-js-type"] = "date";
    },
  }) as JsonSchema;
}

/** Procedures that take input, sorted by path. */
export function procedureInputs(router: RouterLike): ProcedureInput[] {
  const out: ProcedureInput[] = [];
  for (const [path, procedure] of Object.entries(router._def.procedures).sort(([a], [b]) => a.localeCompare(b))) {
    const def = (procedure as ProcedureDef)._def;
    const zod = def.inputs.filter((i): i is z.ZodType => i instanceof z.ZodType);
    if (zod.length === 0) continue;
    const schemas = zod.map(inputJsonSchema);
    out.push({ path, type: def.type, zod, schema: schemas.length === 1 ? schemas[0]! : { allOf: schemas } });
  }
  return out;
}
