// The one writer for JSON columns: a value as the column stores it, which is what JSON.stringify makes of it
// (Dates become ISO strings, undefined members drop). Prisma's input type does not admit arbitrary values, so the
// cast is here, once.
import type { Prisma } from "@/generated/prisma/client";

/** A value for a JSON column; undefined is stored as JSON null. */
export function toJsonColumn(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as Prisma.InputJsonValue;
}

/** The same, but undefined stays undefined (the column is left out of the write). */
export function toOptionalJsonColumn(value: unknown): Prisma.InputJsonValue | undefined {
  return value === undefined ? undefined : toJsonColumn(value);
}
