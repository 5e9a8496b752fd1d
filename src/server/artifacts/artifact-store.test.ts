import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { FileArtifactStore } from "./artifact-store";
import { artifactStoreContract } from "./artifact-store-contract";

const root = mkdtempSync(join(tmpdir(), "artifact-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const store = new FileArtifactStore(root);

artifactStoreContract("FileArtifactStore", () => ({ store, stagingDir: join(root, "staging") }));

describe("FileArtifactStore", () => {
  it("keeps each artifact at objects/<first two hex digits>/<sha256>.onnx, and refuses a path that is not a sha256", async () => {
    const s = await store.stage(Readable.from([Buffer.from("layout")]), 100);
    await store.commit(s);
    expect(store.localPath(s.sha256)).toBe(join(root, "objects", s.sha256.slice(0, 2), `${s.sha256}.onnx`));
    expect(() => store.localPath("../../etc/passwd")).toThrow(/not a sha256/);
  });
});
