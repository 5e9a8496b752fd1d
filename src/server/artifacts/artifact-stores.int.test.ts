// Both artifact stores through the same contract, against real PostgreSQL (the file store needs none, but runs
// here too so the two are held to one suite in one place). The PostgreSQL store uses 4 KiB chunks so the 40 000
// bytes of the first case span 10 rows (9 full, one of 3 136 bytes).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { db } from "@/server/db/client";
import { FileArtifactStore } from "./artifact-store";
import { artifactStoreContract } from "./artifact-store-contract";
import { PostgresArtifactStore } from "./postgres-artifact-store";

const root = mkdtempSync(join(tmpdir(), "artifact-stores-"));
afterAll(async () => {
  await db().artifactBlob.deleteMany({});
  rmSync(root, { recursive: true, force: true });
});

const file = new FileArtifactStore(join(root, "file"));
artifactStoreContract("FileArtifactStore", () => ({ store: file, stagingDir: join(root, "file", "staging") }));

let postgres: PostgresArtifactStore | undefined;
artifactStoreContract("PostgresArtifactStore", () => {
  postgres ??= new PostgresArtifactStore({ prisma: db(), workDir: join(root, "postgres"), chunkBytes: 4096 });
  return { store: postgres, stagingDir: join(root, "postgres", "staging") };
});
