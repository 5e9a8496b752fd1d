// The behaviour every ArtifactStore owes the registry, as one suite that each implementation runs (the file store in
// unit and integration tests, the PostgreSQL store in integration tests). Only for tests.
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ArtifactTooLargeError, type ArtifactStore } from "./artifact-store";

export interface ContractSubject {
  store: ArtifactStore;
  /** The directory the store stages uploads in (to check that nothing is left behind). */
  stagingDir: string;
}

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const chunks = (...parts: Array<string | Buffer>) =>
  Readable.from(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
}

export function artifactStoreContract(name: string, subject: () => ContractSubject): void {
  describe(`ArtifactStore contract: ${name}`, () => {
    const staged = () => readdirSync(subject().stagingDir).filter((f) => f.endsWith(".part"));

    it("stages a stream, hashing on the fly; commit makes it the artifact for its hash; read and localPath give it back", async () => {
      const { store } = subject();
      // 40 000 random bytes in uneven pieces (1, 9 999, 30 000): several chunks for a chunked store.
      const content = randomBytes(40_000);
      const s = await store.stage(
        chunks(content.subarray(0, 1), content.subarray(1, 10_000), content.subarray(10_000)),
        1_000_000,
      );
      expect(s.bytes).toBe(40_000);
      expect(s.sha256).toBe(sha(content));
      expect(await store.has(s.sha256)).toBe(false);
      await store.commit(s);
      expect(await store.has(s.sha256)).toBe(true);
      expect(await store.size(s.sha256)).toBe(40_000);
      expect((await readAll(store.read(s.sha256))).equals(content)).toBe(true);
      expect(readFileSync(await store.localPath(s.sha256)).equals(content)).toBe(true);
      expect(await store.list()).toContain(s.sha256);
      expect((await store.modifiedAt(s.sha256))!.getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(staged()).toEqual([]);
    });

    it("deduplicates: the same content committed twice is one artifact, and the second staged copy is dropped", async () => {
      const { store } = subject();
      const a = await store.stage(chunks("same bytes, twice"), 1024);
      await store.commit(a);
      const b = await store.stage(chunks("same ", "bytes", ", twice"), 1024);
      expect(b.sha256).toBe(a.sha256);
      await store.commit(b);
      expect((await store.list()).filter((h) => h === a.sha256)).toHaveLength(1);
      expect(await store.size(a.sha256)).toBe(17);
      expect(staged()).toEqual([]);
    });

    it("stops past the size limit and keeps nothing; exactly at the limit is allowed", async () => {
      const { store } = subject();
      // 6 + 6 = 12 bytes > 10.
      const refused = store.stage(chunks("abcdef", "ghijkl"), 10);
      await expect(refused).rejects.toBeInstanceOf(ArtifactTooLargeError);
      await expect(refused).rejects.toMatchObject({ code: "artifact-too-large", param: "maxBytes" });
      expect(staged()).toEqual([]);
      const s = await store.stage(chunks("abcdefghij"), 10);
      expect(s.bytes).toBe(10);
      await store.discard(s);
      expect(staged()).toEqual([]);
      expect(await store.has(s.sha256)).toBe(false);
    });

    it("verifies: a source failing mid-stream keeps nothing, and the stored hash is the content's", async () => {
      const { store } = subject();
      async function* broken() {
        yield Buffer.from("part");
        throw new Error("connection reset");
      }
      await expect(store.stage(broken(), 1024)).rejects.toThrow(/connection reset/);
      expect(staged()).toEqual([]);
      const content = Buffer.from("verified content");
      const s = await store.stage(chunks(content), 1024);
      await store.commit(s);
      expect(sha(await readAll(store.read(s.sha256)))).toBe(s.sha256);
      expect(sha(readFileSync(await store.localPath(s.sha256)))).toBe(sha(content));
      expect(await store.has("../../etc/passwd")).toBe(false);
      expect(await store.size("not-a-hash")).toBeUndefined();
    });

    it("removes: gone from has, size, list and modifiedAt; removing twice is harmless", async () => {
      const { store } = subject();
      const s = await store.stage(chunks("to be removed"), 1024);
      await store.commit(s);
      await store.remove(s.sha256);
      expect(await store.has(s.sha256)).toBe(false);
      expect(await store.size(s.sha256)).toBeUndefined();
      expect(await store.modifiedAt(s.sha256)).toBeUndefined();
      expect(await store.list()).not.toContain(s.sha256);
      await store.remove(s.sha256);
      // Committing it again brings it back.
      await store.commit(await store.stage(chunks("to be removed"), 1024));
      expect(await store.has(s.sha256)).toBe(true);
      await store.remove(s.sha256);
    });

    it("lists every committed artifact once, and only committed ones", async () => {
      const { store } = subject();
      const one = await store.stage(chunks("list one"), 1024);
      const two = await store.stage(chunks("list two"), 1024);
      const pending = await store.stage(chunks("list pending"), 1024);
      await store.commit(one);
      await store.commit(two);
      const listed = await store.list();
      expect(listed.filter((h) => h === one.sha256 || h === two.sha256).sort()).toEqual(
        [one.sha256, two.sha256].sort(),
      );
      expect(listed).not.toContain(pending.sha256);
      expect(new Set(listed).size).toBe(listed.length);
      await store.discard(pending);
    });

    it("removes stale staged files only", async () => {
      const { store, stagingDir } = subject();
      const old = join(stagingDir, "old.part");
      writeFileSync(old, "x");
      utimesSync(old, new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000));
      writeFileSync(join(stagingDir, "fresh.part"), "y");
      expect(await store.removeStaleStaging(new Date(Date.now() - 3_600_000))).toBe(1);
      expect(staged()).toEqual(["fresh.part"]);
      await store.discard({ sha256: "", bytes: 1, path: join(stagingDir, "fresh.part") });
      expect(staged()).toEqual([]);
    });
  });
}
