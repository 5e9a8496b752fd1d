// The one writer for JSON columns: a value as the column stores it, which is what JSON.stringify makes of it
// (Dates become ISO strings, undefined members drop). Prisma's input type does not admit arbitrary values, so the
// cast is here, once. A column declared in src/contracts (its reader) is written through writeJsonColumn, so what is
// written is checked against the same schema's type at compile time.
import type { z } from "zod";
import type { JsonColumn } from "@/contracts/json-column";
import type { Prisma } from "@/generated/prisma/client";

/** A value for a JSON column; undefined is stored as JSON null. */
export function toJsonColumn(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as Prisma.InputJsonValue;
}

/** The same, but undefined stays undefined (the column is left out of the write). */
export function toOptionalJsonColumn(value: unknown): Prisma.InputJsonValue | undefined {
  return value === undefined ? undefined : toJsonColumn(value);
}

/** What a writer may hand in: the schema's input, read-only all the way down (the core's results are). */
type Writable<T> = T extends readonly (infer U)[]
  ? readonly Writable<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Writable<T[K]> }
    : T;

/** A value for a declared column, typed by the column's schema (what its reader will accept). */
export function writeJsonColumn<S extends z.ZodType>(
  _column: JsonColumn<S>,
  value: Writable<z.input<S>>,
): Prisma.InputJsonValue {
  return toJsonColumn(value);
}
