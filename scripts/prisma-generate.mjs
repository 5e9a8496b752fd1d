// Runs `prisma generate` offline: Prisma 7's CLI wants to download a native schema engine before
// every command, which cannot work without network. Generate itself uses bundled WASM, so we point
// the engine variable at a stub that fails if anything ever tries to use it.
//
// `--if-stale` (npm start, dev, build, test): generate only when prisma/schema.prisma changed since the client was
// generated, so `git pull && npm start` never builds or runs against an old client. The client records the hash of
// the schema it was generated from.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const schemaPath = "prisma/schema.prisma";
const stampPath = "src/generated/prisma/.schema-sha256";
if (!existsSync(schemaPath)) process.exit(0);
const schemaHash = createHash("sha256").update(readFileSync(schemaPath)).digest("hex");
if (
  process.argv.includes("--if-stale") &&
  existsSync(stampPath) &&
  readFileSync(stampPath, "utf8").trim() === schemaHash
)
  process.exit(0);
const stubDir = join(tmpdir(), "packrat-prisma-stub");
mkdirSync(stubDir, { recursive: true });
const stub = join(stubDir, "schema-engine");
writeFileSync(
  stub,
  "#!/bin/sh\necho 'schema engine not available offline; packrat applies migrations itself' >&2\nexit 1\n",
);
chmodSync(stub, 0o755);
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  stdio: "inherit",
  // eslint-disable-next-line no-restricted-properties -- plain Node at npm install, before tsx: no TypeScript env module
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: stub, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
if (result.status === 0) writeFileSync(stampPath, `${schemaHash}\n`);
process.exit(result.status ?? 1);
