// A JSON value of bounded size, for the few wire fields whose shape is the sender's own record (a load generator's
// stated configuration): typed as JSON, never as unknown.
import { z } from "zod";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string().max(100_000),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema).max(100_000),
    z.record(z.string().max(256), jsonValueSchema),
  ]),
);
