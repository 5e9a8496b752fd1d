// Turns prisma/schema.prisma into the SQL that creates it, offline. Prisma 7's CLI needs a native schema
// engine it cannot download here, so we use Prisma 6.19's WASM engine (installed as `prisma-v6`), which
// wants a `url` in the datasource block and a driver adapter in its config (TOOLCHAIN.md §4).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { processEnvironment } from "../../src/server/env";

const root = resolve(import.meta.dirname, "../..");

function toV6Schema(schemaText: string): string {
  return schemaText.replace(
    /datasource\s+db\s*\{([^}]*)\}/,
    (_m, body: string) => `datasource db {${body.trimEnd()}\n  url = "postgresql://offline@127.0.0.1:1/offline"\n}`,
  );
}

/** SQL that turns `from` (a schema file, or empty) into `to` (a schema file). */
/** `databaseUrl`: Prisma 6's JS engine opens a connection through its adapter even for a pure diff; it reads nothing. */
export function schemaDiffSql(options: { fromSchemaFile?: string; toSchemaFile: string; databaseUrl: string }): string {
  const dir = mkdtempSync(join(tmpdir(), "packrat-schema-diff-"));
  try {
    const write = (name: string, file: string) => {
      const target = join(dir, name);
      writeFileSync(target, toV6Schema(readFileSync(file, "utf8")));
      return target;
    };
    const to = write("to.prisma", options.toSchemaFile);
    const from = options.fromSchemaFile ? write("from.prisma", options.fromSchemaFile) : undefined;
    const stub = join(dir, "no-engine");
    writeFileSync(stub, "");
    writeFileSync(
      join(dir, "prisma.config.ts"),
      `
import { defineConfig } from ${JSON.stringify(join(root, "node_modules/prisma-v6/config.js"))};
import { PrismaPg } from ${JSON.stringify(join(root, "node_modules/prisma-adapter-pg-v6/dist/index.js"))};
export default defineConfig({ experimental: { adapter: true }, engine: "js", schema: "to.prisma",
  adapter: async () => new PrismaPg({ connectionString: ${JSON.stringify(options.databaseUrl)} }) } as never);
`,
    );
    const args = [
      join(root, "node_modules/prisma-v6/build/index.js"),
      "migrate",
      "diff",
      ...(from ? ["--from-schema-datamodel", from] : ["--from-empty"]),
      "--to-schema-datamodel",
      to,
      "--script",
    ];
    const result = spawnSync(process.execPath, args, {
      cwd: dir,
      encoding: "utf8",
      env: processEnvironment({
        CHECKPOINT_DISABLE: "1",
        PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: "1",
        PRISMA_QUERY_ENGINE_LIBRARY: stub,
        PRISMA_SCHEMA_ENGINE_BINARY: stub,
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
      }),
    });
    if (result.status !== 0) throw new Error(`prisma migrate diff failed:\n${result.stderr}\n${result.stdout}`);
    return result.stdout.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const schemaFile = join(root, "prisma/schema.prisma");
export const exists = existsSync;
