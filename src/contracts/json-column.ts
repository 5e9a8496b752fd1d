// A JSON column's one reader: each column of prisma/schema.prisma that holds JSON declares its schema once (the
// *-columns.ts modules beside this one), and every read parses the stored value with it. A value that does not
// match is corrupt (or written by a shape this code no longer knows): the read throws an error naming the column
// and the field, never hands on a cast.
import { z } from "zod";

/** A value as a JSON column hands it back (Prisma's JsonValue is one). */
export type StoredJsonValue =
  | string
  | number
  | boolean
  | null
  | readonly StoredJsonValue[]
  | { readonly [key: string]: StoredJsonValue | undefined };

export class CorruptJsonColumnError extends Error {
  constructor(
    readonly column: string,
    readonly path: string,
    detail: string,
  ) {
    super(`corrupt JSON in column ${column}${path ? ` at ${path}` : ""}: ${detail}`);
    this.name = "CorruptJsonColumnError";
  }
}

export interface JsonColumn<S extends z.ZodType> {
  /** "table.column", as errors name it. */
  readonly column: string;
  readonly schema: S;
  /** The stored value, parsed; throws CorruptJsonColumnError when it does not match. */
  read(value: StoredJsonValue | undefined): z.output<S>;
}

export function jsonColumn<S extends z.ZodType>(column: string, schema: S): JsonColumn<S> {
  return {
    column,
    schema,
    read(value) {
      const parsed = schema.safeParse(value);
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0]!;
      throw new CorruptJsonColumnError(column, issue.path.map(String).join("."), issue.message);
    },
  };
}

/** Dates are stored as JSON makes them: ISO strings. */
export const storedDate = z.iso.datetime({ offset: true });
