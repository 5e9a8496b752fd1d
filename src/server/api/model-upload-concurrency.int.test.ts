// Uploads past the per-replica cap (MODEL_UPLOAD_MAX_CONCURRENT) are refused at once with 429, a JSON body saying
// why and Retry-After, before a byte of them is read; a slot frees when an upload ends, however it ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { resetAuthForTests } from "@/server/auth/auth";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { env, resetEnvForTests } from "@/server/env";
import type { UploadLimits } from "@/server/services/models-upload-service";
import { uploadsInFlight } from "@/server/services/upload-slots";
import { handleModelUpload } from "./model-upload-handler";
import { sessionCookie } from "../../../test/session-cookie";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3997";
const root = mkdtempSync(join(tmpdir(), "upload-cap-test-"));
const store = new FileArtifactStore(join(root, "artifacts"));
const limits: UploadLimits = {
  maxBytes: 64 * 1024 ** 2,
  archiveMaxBytes: 64 * 1024 ** 2,
  validateTimeoutMs: 30_000,
  validateMaxRssBytes: 2 * 1024 ** 3,
  maxConcurrent: 1,
};
let cookie = "";

beforeAll(async () => {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
  const user = await insertTestUser(db(), "ml_engineer");
  cookie = await sessionCookie(ORIGIN, user.email, user.password);
});
afterAll(() => {
  usePasswordHasherForTests(undefined);
  rmSync(root, { recursive: true, force: true });
});

function uploadRequest(name: string, body: ReadableStream<Uint8Array> | Uint8Array) {
  return new Request(`${ORIGIN}/api/models/upload?name=${name}`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream", origin: ORIGIN, cookie },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("concurrent uploads", () => {
  it("the default cap comes from the server's env module", () => {
    expect(env().MODEL_UPLOAD_MAX_CONCURRENT).toBe(2);
  });

  it("refuses one past the cap with 429 and a JSON body, unread, while the first is in flight; then takes the next", async () => {
    const model = zooEntry("tiny-cnn").build();
    // The first upload's body arrives in two parts; the second part waits until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = handleModelUpload(
      uploadRequest(
        `cap-a-${Date.now()}`,
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(model.subarray(0, 100));
            await held;
            controller.enqueue(model.subarray(100));
            controller.close();
          },
        }),
      ),
      { store, limits },
    );
    while (uploadsInFlight() === 0) await new Promise((r) => setTimeout(r, 10));

    let pulled = 0;
    const second = await handleModelUpload(
      uploadRequest(
        `cap-b-${Date.now()}`,
        new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              pulled += 1;
              controller.enqueue(model);
              controller.close();
            },
          },
          { highWaterMark: 0 },
        ),
      ),
      { store, limits },
    );
    expect(second.status).toBe(429);
    expect(second.headers.get("content-type")).toMatch(/application\/json/);
    expect(second.headers.get("retry-after")).toBe("10");
    const body = (await second.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("RATE_LIMITED");
    expect(body.error.message).toMatch(/MODEL_UPLOAD_MAX_CONCURRENT/);
    expect(pulled).toBe(0);

    release();
    expect((await first).status).toBe(201);
    expect(uploadsInFlight()).toBe(0);
    expect((await handleModelUpload(uploadRequest(`cap-c-${Date.now()}`, model), { store, limits })).status).toBe(201);
  });
});
