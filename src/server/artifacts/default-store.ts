// The process's artifact store, chosen by ARTIFACT_STORE: the filesystem under PACKRAT_DATA_DIR/artifacts (file), or
// chunked rows in PostgreSQL (postgres; staging and the materialized cache still live under that directory). On
// globalThis because Next's route handlers and instrumentation do not share module state; re-made if the data
// dir or the kind changes (tests).
import { resolve } from "node:path";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { FileArtifactStore, type ArtifactStore } from "./artifact-store";
import { PostgresArtifactStore } from "./postgres-artifact-store";

const globalForStore = globalThis as unknown as {
  packratArtifactStore?: { key: string; store: ArtifactStore };
  packratArtifactStoreOverride?: ArtifactStore;
};

export function artifactStore(): ArtifactStore {
  if (globalForStore.packratArtifactStoreOverride) return globalForStore.packratArtifactStoreOverride;
  const { ARTIFACT_STORE: kind, PACKRAT_DATA_DIR } = env();
  const root = resolve(PACKRAT_DATA_DIR, "artifacts");
  const key = `${kind}:${root}`;
  if (globalForStore.packratArtifactStore?.key !== key) {
    const store =
      kind === "postgres" ? new PostgresArtifactStore({ prisma: db(), workDir: root }) : new FileArtifactStore(root);
    globalForStore.packratArtifactStore = { key, store };
  }
  return globalForStore.packratArtifactStore.store;
}

/** Tests point the process at a store of their own (undefined: back to the configured one). */
export function useArtifactStoreForTests(store: ArtifactStore | undefined): void {
  globalForStore.packratArtifactStoreOverride = store;
}
