// Every control-plane route that reads a body reads it with a ceiling, before parsing: an anonymous caller
// streaming a huge body (chunked, no Content-Length) is cut off at the limit, not read to the end, and a
// declared oversized Content-Length is refused before a byte is read. Through the handlers Next serves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTrpcRequest } from "@/server/api/http-handler";
import { handleAuthRequest } from "@/server/auth/auth-handler";
import { resetEnvForTests } from "@/server/env";
import { POST as register } from "@/app/api/agent/v1/register/route";
import { POST as heartbeat } from "@/app/api/agent/v1/heartbeat/route";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3999";
const MiB = 1024 ** 2;

beforeAll(() => {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
});
afterAll(() => resetEnvForTests());

/** A body of `totalBytes` that looks like the start of a JSON object, streamed in 64 KiB chunks; counts what was pulled. */
function streamingBody(totalBytes: number) {
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  const state = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"hostname":"'));
      },
      pull(controller) {
        if (state.pulled >= totalBytes) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        state.pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

function post(path: string, body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: ORIGIN, ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("bounded request bodies", () => {
  it.each([
    [
      "agent register (enrollment token, anonymous)",
      "/api/agent/v1/register",
      16 * MiB,
      (r: Request) => register(r),
      { authorization: "Bearer prat_enroll_not-a-real-one" },
    ],
    ["sign-in", "/api/auth/sign-in/email", 16 * 1024, (r: Request) => handleAuthRequest(r), {}],
    ["tRPC mutation", "/api/trpc/agentTokens.create", MiB, (r: Request) => handleTrpcRequest(r), {}],
  ] as const)("%s: a 64 MiB chunked body is cut off at the limit", async (_name, path, limit, handler, headers) => {
    const { stream, state } = streamingBody(64 * MiB);
    const response = await handler(post(path, stream, headers));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      error: { code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining(String(limit)) },
    });
    // Read at most the limit plus the chunk that crossed it (and the stream's one chunk ahead).
    expect(state.pulled).toBeLessThanOrEqual(limit + 3 * 64 * 1024);
  });

  it("an agent heartbeat with a valid token is bounded too", async () => {
    const admin = await insertTestUser(db(), "admin");
    const { token } = await createTestAgentToken({ user: admin, requestId: "t" }, { name: "body-limit" });
    const { stream, state } = streamingBody(64 * MiB);
    const response = await heartbeat(post("/api/agent/v1/heartbeat", stream, { authorization: `Bearer ${token}` }));
    expect(response.status).toBe(413);
    expect(state.pulled).toBeLessThanOrEqual(16 * MiB + 3 * 64 * 1024);
  });

  it("a declared Content-Length past the limit is refused before a byte is read", async () => {
    const { stream, state } = streamingBody(64 * MiB);
    const response = await handleAuthRequest(
      post("/api/auth/sign-in/email", stream, { "content-length": String(64 * MiB) }),
    );
    expect(response.status).toBe(413);
    expect(state.pulled).toBe(0);
  });

  it("bodies within the limit still reach the handler", async () => {
    const response = await handleAuthRequest(
      post("/api/auth/sign-in/email", JSON.stringify({ email: "nobody@example.com", password: "wrong-password-1" }), {
        "x-forwarded-for": "198.51.100.250",
      }),
    );
    expect(response.status).toBe(401);
  });
});
