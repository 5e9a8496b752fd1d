// Issue #23, hostile models: each hostile file goes through the registry's upload service (streamed into the
// artifact store, validated in a watched child, analysed, registered) and must be refused with a message, leave no
// row, no stored and no staged file, and leave this process (the control plane) serving: a good upload follows.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { uploadModel, type UploadLimits } from "@/server/services/models-upload-service";
import { smallValidModel, HOSTILE_ONNX_KINDS } from "./hostile-onnx";
import { hostileOnnxCases, runHostileOnnx } from "./hostile-onnx-run";

const root = mkdtempSync(join(tmpdir(), "packrat-hostile-onnx-"));
const store = new FileArtifactStore(join(root, "artifacts"));
const limits: UploadLimits = {
  maxBytes: 64 * 1024 ** 2,
  archiveMaxBytes: 64 * 1024 ** 2,
  validateTimeoutMs: 60_000,
  validateMaxRssBytes: 2 * 1024 ** 3,
};
let ml: SessionUser;

const upload = (bytes: Uint8Array, name: string) =>
  uploadModel(
    { user: ml, requestId: `hostile-${name}` },
    { name, body: Readable.from([Buffer.from(bytes)]), declaredBytes: bytes.length },
    limits,
    store,
  );

async function snapshot(): Promise<string> {
  const prisma = db();
  const rows = [
    await prisma.model.count(),
    await prisma.modelVersion.count(),
    await prisma.artifact.count(),
    await prisma.auditEvent.count(),
  ];
  const staging = join(root, "artifacts", "staging");
  const staged = readdirSync(join(root, "artifacts")).includes("staging") ? readdirSync(staging) : [];
  return JSON.stringify({ rows, files: (await store.list()).sort(), staged });
}

beforeAll(async () => {
  ml = await insertTestUser(db(), "ml_engineer");
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

// Which refusals fit which kind (a cut can leave a decodable prefix: NOT_ONNX as well as TRUNCATED).
const EXPECTED: Record<(typeof HOSTILE_ONNX_KINDS)[number], string[]> = {
  truncated: ["TRUNCATED", "NOT_ONNX"],
  "random-bytes": ["NOT_ONNX", "TRUNCATED"],
  "enormous-initializer": ["NOT_ONNX"],
  "unsupported-operator": ["UNSUPPORTED_OPERATOR", "ORT_REJECTED"],
  "external-data-outside-store": ["EXTERNAL_DATA"],
  "deeply-nested-subgraphs": ["NOT_ONNX", "ORT_REJECTED"],
};

describe("hostile ONNX files (issue #23)", () => {
  it("refuses every hostile file with a message of the right kind, keeps nothing, and goes on serving", async () => {
    const cases = hostileOnnxCases(4);
    const report = await runHostileOnnx({ cases, upload, snapshot });
    expect(report.findings).toEqual([]);
    for (const kind of HOSTILE_ONNX_KINDS) {
      const counts = report.perKind[kind];
      expect({ kind, refused: counts.refused }).toEqual({ kind, refused: counts.tried });
      expect({ kind, codes: Object.keys(counts.byCode).filter((c) => !EXPECTED[kind].includes(c)) }).toEqual({
        kind,
        codes: [],
      });
      expect(counts.tried).toBeGreaterThanOrEqual(3);
    }
    // The control plane (this process) is still up and the registry still works.
    const good = await upload(smallValidModel(), `after-hostile-${Date.now().toString(36)}`);
    expect(good.version.number).toBe(1);
  }, 0); // no time limit: each file costs a child process, and the machine is shared
});
