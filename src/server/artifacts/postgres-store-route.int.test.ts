// Agents download from the PostgreSQL store exactly as from the file store: ARTIFACT_STORE=postgres selects it, and
// the real artifact route streams the chunks with Content-Length and x-artifact-sha256. A tampered chunk fails the
// body before its end, so an agent never receives a complete file that is not the one it asked for.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { GET } from "@/app/api/agent/v1/artifacts/[sha256]/route";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { registerWithAgentToken } from "@/server/services/agent-registration-service";
import { deployModel } from "@/server/services/deployments-service";
import { registration } from "../../../test/access-probes";
import { artifactStore } from "./default-store";
import { PostgresArtifactStore } from "./postgres-artifact-store";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "pg-store-route-"));
const bytes = zooEntry("tiny-cnn").build(123);
const sha256 = createHash("sha256").update(bytes).digest("hex");
let token = "";

const get = () =>
  GET(
    new Request(`http://localhost:3999/api/agent/v1/artifacts/${sha256}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    { params: Promise.resolve({ sha256 }) },
  );
async function body(response: Response): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

beforeAll(async () => {
  Object.assign(testEnv, { ARTIFACT_STORE: "postgres", PACKRAT_DATA_DIR: dataDir });
  resetEnvForTests();
  const store = artifactStore();
  expect(store).toBeInstanceOf(PostgresArtifactStore);
  await store.commit(await store.stage(Readable.from([Buffer.from(bytes)]), 1e8));
  const prisma = db();
  await prisma.artifact.upsert({ where: { sha256 }, create: { sha256, bytes: BigInt(bytes.length) }, update: {} });
  const model = await prisma.model.create({ data: { name: `pg-store-route-${Date.now()}` } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: sha256, source: "upload", analysis: {} },
  });
  const caller = { user: await insertTestUser(prisma, "sre"), requestId: "pg-store-route" };
  const created = await createTestAgentToken(caller, { name: "pg-store-route-agent" });
  token = created.token;
  const { agentId } = await registerWithAgentToken(
    { tokenId: created.id, name: created.name, createdAt: created.createdAt, agentId: null },
    registration(`pg-store-route-${created.id.slice(0, 8)}`),
    "pg-store-route",
  );
  await deployModel(caller, { agentId, modelVersionId: version.id, cpus: [0, 1] });
});
afterAll(async () => {
  await db().artifactBlob.deleteMany({ where: { sha256 } });
  delete testEnv.ARTIFACT_STORE;
  resetEnvForTests();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the artifact route over ARTIFACT_STORE=postgres", () => {
  it("streams the model from its chunk rows with its length and hash", async () => {
    // The tiny CNN (a few KiB) fits in one row; streaming many chunks is covered by postgres-artifact-store.int.test.ts.
    // This is the route's path through the configured store.
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String(bytes.length));
    expect(response.headers.get("x-artifact-sha256")).toBe(sha256);
    const received = await body(response);
    expect(createHash("sha256").update(received).digest("hex")).toBe(sha256);
  });

  it("a tampered chunk fails the response body instead of delivering wrong bytes", async () => {
    await db()
      .$executeRaw`UPDATE artifact_chunk SET data = ${Buffer.alloc(bytes.length, 1)} WHERE sha256 = ${sha256} AND index = 0`;
    const response = await get();
    expect(response.status).toBe(200); // the headers left before the last chunk was checked
    await expect(body(response)).rejects.toThrow(/failed verification/);
  });
});
