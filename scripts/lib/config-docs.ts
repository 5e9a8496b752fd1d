// The configuration tables of docs/configuration.md, generated from the zod env schemas: one row per variable
// the schema knows, its default as the schema gives it (a field parsed from nothing), and its meaning, the one
// hand-written part, kept from the table being regenerated. `node --import tsx scripts/config-docs.ts` rewrites
// the file; scripts/config-docs.test.ts fails when a table and its schema disagree.
import type { z } from "zod";

export interface EnvRow {
  name: string;
  default: string;
}

function formatDefault(value: unknown): string {
  if (value === undefined) return "unset";
  if (typeof value === "string") return value === "" ? "empty" : `\`${value}\``;
  if (Array.isArray(value)) return value.length ? `\`${value.join(",")}\`` : "empty";
  return `\`${String(value)}\``;
}

/** Each variable of the schema with the default the schema gives it ("unset" for an optional one). */
export function envRows(schema: z.ZodObject): EnvRow[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const parsed = (field as z.ZodType).safeParse(undefined);
    return { name, default: parsed.success ? formatDefault(parsed.data) : "required" };
  });
}

const begin = (id: string) =>
  `<!-- env-table ${id}: generated from the schema by scripts/config-docs.ts; edit only the meanings -->`;
const end = "<!-- /env-table -->";

/** The meanings of the table `id` in `markdown`, by variable. */
export function tableMeanings(markdown: string, id: string): Map<string, string> {
  const meanings = new Map<string, string>();
  const start = markdown.indexOf(begin(id));
  if (start < 0) return meanings;
  const body = markdown.slice(start, markdown.indexOf(end, start));
  for (const line of body.split("\n")) {
    const cells = line.match(/^\| `([A-Z0-9_]+)` \| .*? \| (.*) \|$/);
    if (cells) meanings.set(cells[1]!, cells[2]!.trim());
  }
  return meanings;
}

export function renderTable(id: string, rows: readonly EnvRow[], meanings: ReadonlyMap<string, string>): string {
  const lines = rows.map((r) => `| \`${r.name}\` | ${r.default} | ${meanings.get(r.name) ?? ""} |`);
  return [begin(id), "", "| variable | default | meaning |", "|---|---|---|", ...lines, "", end].join("\n");
}

/** `markdown` with each table replaced by the one its schema generates (meanings kept by variable name). */
export function regenerate(markdown: string, schemas: Record<string, z.ZodObject>): string {
  let out = markdown;
  for (const [id, schema] of Object.entries(schemas)) {
    const start = out.indexOf(begin(id));
    if (start < 0) throw new Error(`docs/configuration.md has no table "${id}" (a line "${begin(id)}")`);
    const stop = out.indexOf(end, start);
    if (stop < 0) throw new Error(`the table "${id}" has no closing ${end}`);
    out = out.slice(0, start) + renderTable(id, envRows(schema), tableMeanings(out, id)) + out.slice(stop + end.length);
  }
  return out;
}
