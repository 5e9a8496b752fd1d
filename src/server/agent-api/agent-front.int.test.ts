// The agent front over real HTTP and the real database: what an agent sees through it is what it saw through Next
// (the heartbeat, refusals in the agent error shape, the security headers, a streamed file), a long-poll stops
// waiting when the agent hangs up, and a revoked token is refused on the heartbeat's one-statement path.
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { useArtifactStoreForTests } from "@/server/artifacts/default-store";
import { createTestAgentToken, createTestEnrollmentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { env, resetEnvForTests } from "@/server/env";
import { notifyHub } from "@/server/realtime/notify-hub";
import { revokeAgentToken } from "@/server/services/agent-tokens-service";
import { deployModel } from "@/server/services/deployments-service";
import { registration } from "../../../test/access-probes";
import { testEnv } from "../../../test/test-env";
import { AGENT_ROUTE_MODULES } from "@/app/api/agent/v1/route-table";
import { createAgentFront, type AgentFront } from "./agent-front";

const root = mkdtempSync(join(tmpdir(), "agent-front-"));
const store = new FileArtifactStore(root);
const bytes = zooEntry("tiny-cnn").build(7);
const sha256 = createHash("sha256").update(bytes).digest("hex");
let front: AgentFront;
let server: Server;
let url = "";

beforeAll(async () => {
  // A hold no test waits out: a poll that ends ended because the agent hung up.
  Object.assign(testEnv, { LONG_POLL_HOLD_MS: "600000", LOG_LEVEL: "error" });
  resetEnvForTests();
  useArtifactStoreForTests(store);
  await store.commit(await store.stage(Readable.from([Buffer.from(bytes)]), 1e8));
  front = createAgentFront(AGENT_ROUTE_MODULES);
  server = createServer((req, res) => {
    if (!front.handle(req, res)) res.writeHead(418).end("not the agent API");
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  useArtifactStoreForTests(undefined);
  rmSync(root, { recursive: true, force: true });
  delete testEnv.LONG_POLL_HOLD_MS;
  resetEnvForTests();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = { "content-type": "application/json" };

async function tokenFor(name: string) {
  const admin = await insertTestUser(db(), "admin");
  const created = await createTestAgentToken({ user: admin, requestId: "agent-front" }, { name });
  return { admin, token: created.token, tokenId: created.id };
}

async function registeredAgent(name: string) {
  const { admin, token, tokenId } = await tokenFor(name);
  const bootId = crypto.randomUUID();
  const response = await fetch(`${url}/api/agent/v1/register`, {
    method: "POST",
    headers: { ...bearer(token), ...json },
    body: JSON.stringify(registration(`${name}-${tokenId.slice(0, 8)}`, bootId)),
  });
  expect(response.status).toBe(200);
  const { agentId } = (await response.json()) as { agentId: string };
  return { admin, token, tokenId, agentId, bootId };
}

const heartbeat = (token: string, bootId: string, revision = 0) =>
  fetch(`${url}/api/agent/v1/heartbeat`, {
    method: "POST",
    headers: { ...bearer(token), ...json },
    body: JSON.stringify({ bootId, revision }),
  });

function expectSecurityHeaders(response: Response) {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  expect(response.headers.get("referrer-policy")).toBe("same-origin");
  expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
}

describe("the agent front", () => {
  it("serves every route module under src/app/api/agent/v1", () => {
    const dir = join(import.meta.dirname, "../../app/api/agent/v1");
    const routes = readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith("route.ts"))
      .map((f) => relative(dir, join(dir, f)).replace(/\/route\.ts$/, ""))
      .sort();
    expect(AGENT_ROUTE_MODULES.map(([path]) => path).sort()).toEqual(routes);
  });

  it("leaves every other path to the caller", async () => {
    expect((await fetch(`${url}/api/health`)).status).toBe(418);
    expect((await fetch(`${url}/api/agent/v1x`)).status).toBe(418);
  });

  it("renews the lease on POST /heartbeat: one answer with the revision, the lease and boot written", async () => {
    const { token, agentId, bootId } = await registeredAgent("front-heartbeat");
    const response = await heartbeat(token, bootId, 0);
    expect(response.status).toBe(200);
    expectSecurityHeaders(response);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    expect(await response.json()).toEqual({ ok: true, revision });
    const before = Date.now();
    const rebooted = crypto.randomUUID();
    expect((await heartbeat(token, rebooted, 3)).status).toBe(200);
    const agent = await db().agent.findUniqueOrThrow({ where: { id: agentId } });
    expect(agent.bootId).toBe(rebooted);
    expect(agent.appliedRevision).toBe(3);
    // Stored as Prisma stores it (UTC in a timestamp column): read back, it is the moment it was written.
    expect(Math.abs(agent.lastHeartbeatAt!.getTime() - before)).toBeLessThan(60_000);
  });

  it("stamps the token's last use when it is a minute old, not on every heartbeat", async () => {
    const { token, tokenId, bootId } = await registeredAgent("front-last-used");
    await db().agentToken.update({ where: { id: tokenId }, data: { lastUsedAt: new Date(0) } });
    expect((await heartbeat(token, bootId)).status).toBe(200);
    const stamped = await db().agentToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(stamped.lastUsedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    const recent = new Date(Date.now() - 10_000);
    await db().agentToken.update({ where: { id: tokenId }, data: { lastUsedAt: recent } });
    expect((await heartbeat(token, bootId)).status).toBe(200);
    const kept = await db().agentToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(kept.lastUsedAt!.getTime()).toBe(recent.getTime());
  });

  it("refuses a revoked token on the heartbeat (401), an unregistered one (409), and no token (401)", async () => {
    const { admin, token, tokenId, bootId } = await registeredAgent("front-revoked");
    await revokeAgentToken({ user: admin, requestId: "agent-front" }, { id: tokenId });
    const revoked = await heartbeat(token, bootId);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get("www-authenticate")).toContain("Bearer");
    expect(await revoked.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    const fresh = await tokenFor("front-unregistered");
    const unregistered = await heartbeat(fresh.token, bootId);
    expect(unregistered.status).toBe(409);
    expect(await unregistered.json()).toMatchObject({ error: { code: "CONFLICT" } });
    const none = await fetch(`${url}/api/agent/v1/heartbeat`, { method: "POST", body: "{}" });
    expect(none.status).toBe(401);
  });

  it("answers 404 and 405 in the agent error shape, with the security headers; OPTIONS lists the methods", async () => {
    const missing = await fetch(`${url}/api/agent/v1/nothing-here`);
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing);
    expect(await missing.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    const wrong = await fetch(`${url}/api/agent/v1/heartbeat`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
    expect(await wrong.json()).toMatchObject({ error: { code: "METHOD_NOT_ALLOWED" } });
    const options = await fetch(`${url}/api/agent/v1/desired`, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("answers 413 past the body limit, declared or streamed, and 401 first for a bad token", async () => {
    const { token, bootId } = await registeredAgent("front-large");
    const limit = env().AGENT_API_MAX_BODY_BYTES;
    const large = JSON.stringify({ bootId, revision: 0, padding: "x".repeat(limit) });
    const declared = await fetch(`${url}/api/agent/v1/heartbeat`, {
      method: "POST",
      headers: { ...bearer(token), ...json },
      body: large,
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
    // Chunked, no Content-Length: counted as it arrives.
    const streamed = await fetch(`${url}/api/agent/v1/events`, {
      method: "POST",
      headers: { ...bearer(token), ...json },
      body: Readable.toWeb(Readable.from([large.slice(0, limit / 2), large.slice(limit / 2)])) as ReadableStream,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    const stranger = await fetch(`${url}/api/agent/v1/heartbeat`, {
      method: "POST",
      headers: { ...bearer("prat_not-a-token"), ...json },
      body: large,
    });
    expect(stranger.status).toBe(401);
  });

  it("stops a held long-poll when the agent hangs up", async () => {
    const { token, tokenId, agentId } = await registeredAgent("front-hangup");
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    const idle = front.inFlight();
    const poll = httpRequest(`${url}/api/agent/v1/desired?after=${revision}`, { headers: bearer(token) });
    poll.on("error", () => {}); // the hang-up below
    poll.end();
    while (front.inFlight() === idle) await new Promise((r) => setTimeout(r, 20));
    // Held (nothing newer than `after`) for the ten-minute hold; then the agent goes away.
    await new Promise((r) => setTimeout(r, 200));
    expect(front.inFlight()).toBe(idle + 1);
    expect(notifyHub().waiterCount("packrat_desired", agentId)).toBe(1);
    poll.destroy();
    while (front.inFlight() > idle) await new Promise((r) => setTimeout(r, 20));
    expect(front.inFlight()).toBe(idle);
    // The hub holds nothing of it: neither the wait nor the revocation watch.
    expect(notifyHub().waiterCount("packrat_desired", agentId)).toBe(0);
    expect(notifyHub().waiterCount("packrat_agent_token_revoked", tokenId)).toBe(0);
  });

  it("answers a long-poll at once with a newer desired state (200 JSON, the agent's request id)", async () => {
    const { token, agentId } = await registeredAgent("front-newer");
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    await db().agent.update({ where: { id: agentId }, data: { revision: revision + 1 } });
    const response = await fetch(`${url}/api/agent/v1/desired?after=${revision}`, {
      headers: { ...bearer(token), "x-request-id": "poll-newer-1" },
    });
    expect(response.status).toBe(200);
    expectSecurityHeaders(response);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toBe("poll-newer-1");
    expect(await response.json()).toEqual({ revision: revision + 1, deployments: [] });
    expect(notifyHub().waiterCount("packrat_desired", agentId)).toBe(0);
  });

  it("answers 204 after the hold, {job: null} on /jobs/next, 400 for an unknown kind or a bad query, 409 unregistered", async () => {
    const { token, tokenId, agentId } = await registeredAgent("front-hold");
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    Object.assign(testEnv, { LONG_POLL_HOLD_MS: "200" });
    resetEnvForTests();
    try {
      const idle = await fetch(`${url}/api/agent/v1/desired?after=${revision}`, { headers: bearer(token) });
      expect(idle.status).toBe(204);
      expectSecurityHeaders(idle);
      expect(idle.headers.get("cache-control")).toBe("no-store");
      expect(idle.headers.get("x-request-id")).toBeTruthy();
      expect(await idle.text()).toBe("");
      const noJob = await fetch(`${url}/api/agent/v1/jobs/next?kinds=profile,load_test`, { headers: bearer(token) });
      expect(noJob.status).toBe(200);
      expect(noJob.headers.get("cache-control")).toBe("no-store");
      expect(await noJob.json()).toEqual({ job: null });
    } finally {
      Object.assign(testEnv, { LONG_POLL_HOLD_MS: "600000" });
      resetEnvForTests();
    }
    const unknown = await fetch(`${url}/api/agent/v1/jobs/next?kinds=profile,juggling`, { headers: bearer(token) });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: { code: "unknown_job_kind", parameter: "kinds" } });
    const bad = await fetch(`${url}/api/agent/v1/desired?after=-3`, { headers: bearer(token) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "BAD_REQUEST", parameter: "after" } });
    const fresh = await tokenFor("front-poll-unregistered");
    const unregistered = await fetch(`${url}/api/agent/v1/desired`, { headers: bearer(fresh.token) });
    expect(unregistered.status).toBe(409);
    expect(await unregistered.json()).toMatchObject({ error: { code: "CONFLICT" } });
    const none = await fetch(`${url}/api/agent/v1/jobs/next`);
    expect(none.status).toBe(401);
    expect(notifyHub().waiterCount("packrat_agent_token_revoked", tokenId)).toBe(0);
  });

  it("ends a held long-poll with 401 when its token is revoked, and holds nothing after", async () => {
    const { admin, token, tokenId, agentId } = await registeredAgent("front-poll-revoked");
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    const poll = fetch(`${url}/api/agent/v1/desired?after=${revision}`, { headers: bearer(token) });
    while (notifyHub().waiterCount("packrat_desired", agentId) === 0) await new Promise((r) => setTimeout(r, 20));
    expect(notifyHub().waiterCount("packrat_agent_token_revoked", tokenId)).toBe(1);
    await revokeAgentToken({ user: admin, requestId: "agent-front" }, { id: tokenId });
    const response = await poll;
    expect(response.status).toBe(401);
    expectSecurityHeaders(response);
    expect(response.headers.get("www-authenticate")).toContain("Bearer");
    expect(await response.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    expect(notifyHub().waiterCount("packrat_desired", agentId)).toBe(0);
    expect(notifyHub().waiterCount("packrat_agent_token_revoked", tokenId)).toBe(0);
  });

  it("checks a long-poll's token in the database once a minute, not on every poll; a revocation heard ends that at once", async () => {
    const { admin, token, tokenId, agentId } = await registeredAgent("front-poll-verified");
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    await db().agent.update({ where: { id: agentId }, data: { revision: revision + 1 } });
    const poll = () => fetch(`${url}/api/agent/v1/desired?after=${revision}`, { headers: bearer(token) });
    expect((await poll()).status).toBe(200); // checked in the database: its last use stamped
    // A last use long ago: a poll that asked the database would stamp it anew; the next polls do not ask.
    const long = new Date(0);
    await db().agentToken.update({ where: { id: tokenId }, data: { lastUsedAt: long } });
    for (let i = 0; i < 3; i++) expect((await poll()).status).toBe(200);
    expect((await db().agentToken.findUniqueOrThrow({ where: { id: tokenId } })).lastUsedAt).toEqual(long);
    // Revoked (the service NOTIFYs it): once this replica has heard it, the very next poll is refused.
    const revokedAt = performance.now();
    await revokeAgentToken({ user: admin, requestId: "agent-front" }, { id: tokenId });
    while (!notifyHub().revokedSince(tokenId, revokedAt)) await new Promise((r) => setTimeout(r, 10));
    expect((await poll()).status).toBe(401);
  });

  it("forgets a token replaced by a new enrollment of its host: the old token's polls are refused", async () => {
    const { token, tokenId, agentId, bootId } = await registeredAgent("front-poll-reenrolled");
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    await db().agent.update({ where: { id: agentId }, data: { revision: revision + 1 } });
    const poll = () => fetch(`${url}/api/agent/v1/desired?after=${revision}`, { headers: bearer(token) });
    expect((await poll()).status).toBe(200);
    // Offline long enough that its host name may be enrolled again.
    const { hostName } = await db().agent.update({ where: { id: agentId }, data: { lastHeartbeatAt: new Date(0) } });
    // The same host enrolls again (a reinstalled node): its old token is revoked, and NOTIFYd as every revocation.
    const enrollment = await createTestEnrollmentToken(
      { user: await insertTestUser(db(), "admin"), requestId: "agent-front" },
      { name: "front-reenroll" },
    );
    const replacedAt = performance.now();
    const again = await fetch(`${url}/api/agent/v1/register`, {
      method: "POST",
      headers: { ...bearer(enrollment.token), ...json },
      body: JSON.stringify(registration(hostName, bootId)),
    });
    expect(again.status).toBe(200);
    expect((await db().agentToken.findUniqueOrThrow({ where: { id: tokenId } })).revokedAt).not.toBeNull();
    while (!notifyHub().revokedSince(tokenId, replacedAt)) await new Promise((r) => setTimeout(r, 10));
    expect((await poll()).status).toBe(401);
  });

  it("streams an artifact to the agent it is deployed to, with its length and hash", async () => {
    const { admin, token, agentId } = await registeredAgent("front-artifact");
    const prisma = db();
    await prisma.artifact.upsert({ where: { sha256 }, create: { sha256, bytes: BigInt(bytes.length) }, update: {} });
    const model = await prisma.model.create({ data: { name: `agent-front-${sha256.slice(0, 8)}-${Date.now()}` } });
    const version = await prisma.modelVersion.create({
      data: { modelId: model.id, number: 1, artifactSha256: sha256, source: "upload", analysis: {} },
    });
    await deployModel({ user: admin, requestId: "agent-front" }, { agentId, modelVersionId: version.id, cpus: [0, 1] });
    const response = await fetch(`${url}/api/agent/v1/artifacts/${sha256}`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    expectSecurityHeaders(response);
    expect(response.headers.get("content-length")).toBe(String(bytes.length));
    expect(response.headers.get("x-artifact-sha256")).toBe(sha256);
    expect(response.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    const received = Buffer.from(await response.arrayBuffer());
    expect(createHash("sha256").update(received).digest("hex")).toBe(sha256);
    const head = await fetch(`${url}/api/agent/v1/artifacts/${sha256}`, { method: "HEAD", headers: bearer(token) });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(bytes.length));
    const malformed = await fetch(`${url}/api/agent/v1/artifacts/not-a-hash`, { headers: bearer(token) });
    expect(malformed.status).toBe(404);
  });
});
