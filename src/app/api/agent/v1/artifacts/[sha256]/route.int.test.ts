// The agents' artifact route against the real database: an agent whose deployment runs the version gets the file
// streamed with its length and hash; other agents' files are 403 (test/access-probes.ts covers them all), a bad
// hash or a lost file 404, anything but an agent token 401.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { useArtifactStoreForTests } from "@/server/artifacts/default-store";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { registerWithAgentToken } from "@/server/services/agent-registration-service";
import { revokeAgentToken } from "@/server/services/agent-tokens-service";
import { deployModel } from "@/server/services/deployments-service";
import { registration } from "../../../../../../../test/access-probes";
import { GET } from "./route";

const root = mkdtempSync(join(tmpdir(), "artifact-route-"));
const store = new FileArtifactStore(root);
const bytes = zooEntry("tiny-cnn").build(99);
const sha256 = createHash("sha256").update(bytes).digest("hex");
let token = "";
let tokenId = "";

const get = (hash: string, authorization?: string) =>
  GET(
    new Request(`http://localhost:3999/api/agent/v1/artifacts/${hash}`, {
      headers: authorization ? { authorization } : {},
    }),
    { params: Promise.resolve({ sha256: hash }) },
  );

beforeAll(async () => {
  useArtifactStoreForTests(store);
  const staged = await store.stage(Readable.from([Buffer.from(bytes)]), 1e8);
  await store.commit(staged);
  const prisma = db();
  await prisma.artifact.upsert({ where: { sha256 }, create: { sha256, bytes: BigInt(bytes.length) }, update: {} });
  const model = await prisma.model.create({ data: { name: `artifact-route-${sha256.slice(0, 8)}-${Date.now()}` } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: sha256, source: "upload", analysis: {} },
  });
  const caller = { user: await insertTestUser(prisma, "sre"), requestId: "artifact-route" };
  const created = await createTestAgentToken(caller, { name: "artifact-route-agent" });
  ({ token, id: tokenId } = created);
  // Registered as an agent would, and the version deployed to it: its file is this agent's to fetch.
  const { agentId } = await registerWithAgentToken(
    { tokenId, name: created.name, createdAt: created.createdAt, agentId: null },
    registration(`artifact-route-${tokenId.slice(0, 8)}`),
    "artifact-route",
  );
  await deployModel(caller, { agentId, modelVersionId: version.id, cpus: [0, 1] });
});
afterAll(() => {
  useArtifactStoreForTests(undefined);
  rmSync(root, { recursive: true, force: true });
});

describe("GET /api/agent/v1/artifacts/{sha256}", () => {
  it("streams the file with Content-Length and x-artifact-sha256; what arrives hashes to the name", async () => {
    const response = await get(sha256, `Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(bytes.length));
    expect(response.headers.get("x-artifact-sha256")).toBe(sha256);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    let received = 0;
    const hash = createHash("sha256");
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.length;
      hash.update(chunk);
    }
    expect(received).toBe(bytes.length);
    expect(hash.digest("hex")).toBe(sha256);
  });

  it("403 for a hash no version has and for a stray file without a row; 404 for a malformed hash", async () => {
    // Not deployed to this agent, whether it exists or not: the same 403, so a token cannot probe the store.
    expect((await get("0".repeat(64), `Bearer ${token}`)).status).toBe(403);
    const stray = await store.stage(Readable.from([Buffer.from("a file without a row")]), 1e6);
    await store.commit(stray);
    expect((await get(stray.sha256, `Bearer ${token}`)).status).toBe(403);
    expect((await get("../../etc/passwd", `Bearer ${token}`)).status).toBe(404);
  });

  it("404 when the agent may have the file but the store lost it", async () => {
    await store.remove(sha256);
    expect((await get(sha256, `Bearer ${token}`)).status).toBe(404);
    const staged = await store.stage(Readable.from([Buffer.from(bytes)]), 1e8);
    await store.commit(staged);
    expect((await get(sha256, `Bearer ${token}`)).status).toBe(200);
  });

  it("401 without a token, with a user's session cookie, and with a revoked token", async () => {
    expect((await get(sha256)).status).toBe(401);
    expect((await get(sha256, "Bearer not-a-token")).status).toBe(401);
    const sre = await insertTestUser(db(), "sre");
    await revokeAgentToken({ user: sre, requestId: "r" }, { id: tokenId });
    expect((await get(sha256, `Bearer ${token}`)).status).toBe(401);
  });
});
