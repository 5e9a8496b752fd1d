import { readFileSync } from "node:fs";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { configDocPath, configSchemas } from "./config-docs";
import { envRows, regenerate, tableMeanings } from "./lib/config-docs";

const doc = readFileSync(configDocPath, "utf8");

describe("docs/configuration.md", () => {
  it("each table is exactly what its schema generates (run `node --import tsx scripts/config-docs.ts` after a schema change)", () => {
    expect(regenerate(doc, configSchemas)).toBe(doc);
  });

  it("every variable has a meaning written", () => {
    for (const id of Object.keys(configSchemas)) {
      const meanings = tableMeanings(doc, id);
      const blank = envRows(configSchemas[id as keyof typeof configSchemas]).filter((r) => !meanings.get(r.name));
      expect({ id, blank: blank.map((r) => r.name) }).toEqual({ id, blank: [] });
    }
  });
});

describe("the table generator", () => {
  const schema = z.object({
    A_MS: z.coerce.number().default(5),
    B_URL: z.string().url().optional(),
    C_FLAG: z
      .enum(["true", "false"])
      .default("true")
      .transform((v) => v === "true"),
    D_NEEDED: z.string(),
  });

  it("reads defaults off the schema: a number, unset, a transformed boolean, required", () => {
    expect(envRows(schema)).toEqual([
      { name: "A_MS", default: "`5`" },
      { name: "B_URL", default: "unset" },
      { name: "C_FLAG", default: "`true`" },
      { name: "D_NEEDED", default: "required" },
    ]);
  });

  it("a changed default, a new variable and a removed one all change the table; meanings stay by name", () => {
    const markdown = regenerate(
      "x\n<!-- env-table t: generated from the schema by scripts/config-docs.ts; edit only the meanings -->\n<!-- /env-table -->\ny",
      { t: z.object({ A_MS: z.coerce.number().default(5), OLD: z.string().optional() }) },
    );
    const withMeaning = markdown.replace("| `A_MS` | `5` |  |", "| `A_MS` | `5` | how long |");
    const next = regenerate(withMeaning, {
      t: z.object({ A_MS: z.coerce.number().default(7), NEW: z.string().optional() }),
    });
    expect(next).toContain("| `A_MS` | `7` | how long |");
    expect(next).toContain("| `NEW` | unset |  |");
    expect(next).not.toContain("OLD");
    expect(next.startsWith("x\n") && next.endsWith("\ny")).toBe(true);
  });
});
