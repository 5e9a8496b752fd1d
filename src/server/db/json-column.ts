// The one writer for JSON columns: a value as the column stores it, which is what JSON.stringify makes of it
// (Dates become ISO strings, undefined members drop). Prisma's input type does not admit arbitrary values, so the
// cast is here, once. Every JSON column is declared in src/contracts (its reader) and written through
// writeJsonColumn, so what is written is checked against the same schema's type at compile time.
import type { z } from "zod";
import type { JsonColumn } from "@/contracts/json-column";
import type { Prisma } from "@/generated/prisma/client";

function stored(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as Prisma.InputJsonValue;
}

/**
 * What a writer may hand in: the schema's input, read-only all the way down (the core's results are). A record's
 * member may be undefined: it drops on the write, and a record requires no key.
 */
type Writable<T> = T extends readonly (infer U)[]
  ? readonly Writable<U>[]
  : T extends object
    ? string extends keyof T
      ? { readonly [key: string]: Writable<T[string & keyof T]> | undefined }
      : { readonly [K in keyof T]: Writable<T[K]> }
    : T;

/** What writeJsonColumn accepts for a column. */
export type JsonColumnInput<C> = C extends JsonColumn<infer S> ? Writable<z.input<S>> : never;

/** A value for a declared column, typed by the column's schema (what its reader will accept). */
export function writeJsonColumn<S extends z.ZodType>(
  _column: JsonColumn<S>,
  value: Writable<z.input<S>>,
): Prisma.InputJsonValue {
  return stored(value);
}

/** The same, but undefined stays undefined (the column is left out of the write). */
export function writeOptionalJsonColumn<S extends z.ZodType>(
  column: JsonColumn<S>,
  value: Writable<z.input<S>> | undefined,
): Prisma.InputJsonValue | undefined {
  return value === undefined ? undefined : writeJsonColumn(column, value);
}

/** The same value as JSON text, for a parameter of a statement written for plain pg (`$1::jsonb`). */
export function jsonColumnText<S extends z.ZodType>(_column: JsonColumn<S>, value: Writable<z.input<S>>): string {
  return JSON.stringify(value ?? null);
}
