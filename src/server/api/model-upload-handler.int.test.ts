// Uploads through real HTTP (node:http in front of the same handler Next serves at /api/models/upload) against the
// real database: streamed bodies, every way a file is refused, and proof that a refused upload leaves no row and
// no file behind. Validation runs in real child processes; the watchdog kills them and this process carries on.
import { tarArchive, zipArchive } from "@/lib/model-bundle/test-archives";
import { externalWeightsModel } from "@/lib/onnx/wild-models";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { externalDataModel, oneNodeModel, randomBytes, typeMismatchModel } from "@/lib/onnx/test-models";
import { zooEntry } from "@/modelzoo/registry";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import { resetAuthForTests } from "@/server/auth/auth";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import type { UploadLimits } from "@/server/services/models-upload-service";
import { readStoredAnalysis } from "@/server/services/models-analysis";
import { handleModelUpload } from "./model-upload-handler";
import { sessionCookie } from "../../../test/session-cookie";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3998";
const root = mkdtempSync(join(tmpdir(), "upload-test-"));
const store = new FileArtifactStore(join(root, "artifacts"));
const normalLimits: UploadLimits = {
  maxBytes: 64 * 1024 ** 2,
  archiveMaxBytes: 64 * 1024 ** 2,
  validateTimeoutMs: 30_000,
  validateMaxRssBytes: 2 * 1024 ** 3,
};
let limits = normalLimits;
let server: Server;
let base = "";
/** Every response the handler made, including ones the client never saw (it hung up). */
const handled: Response[] = [];
const cookies: Record<"ml" | "sre" | "admin", string> = { ml: "", sre: "", admin: "" };

const cnn = zooEntry("tiny-cnn").build();
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const suffix = () => Math.random().toString(36).slice(2, 8);

beforeAll(async () => {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
  for (const role of ["ml", "sre", "admin"] as const) {
    const user = await insertTestUser(db(), role === "ml" ? "ml_engineer" : role);
    cookies[role] = await sessionCookie(ORIGIN, user.email, user.password);
  }
  server = createServer(async (req, res) => {
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`${ORIGIN}${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
    } as RequestInit);
    const response = await handleModelUpload(request, { store, limits });
    handled.push(response.clone());
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  usePasswordHasherForTests(undefined);
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  rmSync(root, { recursive: true, force: true });
});

interface UploadOptions {
  name?: string;
  fileName?: string;
  cookie?: string;
  origin?: string | null;
  type?: string;
  chunked?: boolean;
  method?: string;
  dims?: string;
}

/** An upload as the dashboard sends it; `chunked` streams the body in 1 KiB pieces with no Content-Length. */
async function upload(
  bytes: Uint8Array,
  o: UploadOptions = {},
): Promise<{
  status: number;
  body: { error?: { code: string; message: string; field?: string }; [k: string]: unknown };
}> {
  const params = new URLSearchParams({ name: o.name ?? `m-${suffix()}` });
  if (o.fileName !== undefined) params.set("fileName", o.fileName);
  if (o.dims !== undefined) params.set("dims", o.dims);
  const headers: Record<string, string> = {
    "content-type": o.type ?? "application/octet-stream",
    cookie: o.cookie ?? cookies.ml,
  };
  if (o.origin !== null) headers.origin = o.origin ?? ORIGIN;
  const body = o.chunked
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
          controller.close();
        },
      })
    : bytes;
  const response = await fetch(`${base}/api/models/upload?${params}`, {
    method: o.method ?? "POST",
    headers,
    ...(o.method === "GET" ? {} : { body, duplex: "half" }),
  } as RequestInit);
  return { status: response.status, body: await response.json() };
}

interface Snapshot {
  models: number;
  versions: number;
  artifacts: number;
  files: string[];
  staged: string[];
}
async function snapshot(): Promise<Snapshot> {
  const prisma = db();
  return {
    models: await prisma.model.count(),
    versions: await prisma.modelVersion.count(),
    artifacts: await prisma.artifact.count(),
    files: (await store.list()).sort(),
    staged: readdirSync(join(root, "artifacts", "staging")),
  };
}

async function expectRejected(bytes: Uint8Array, code: string, status = 422, o: UploadOptions = {}) {
  const before = await snapshot();
  const r = await upload(bytes, o);
  expect({ status: r.status, code: r.body.error?.code }).toEqual({ status, code });
  expect(r.body.error?.message.length).toBeGreaterThan(10);
  // Nothing left behind: no row, no stored file, no staged file.
  expect(await snapshot()).toEqual({ ...before, staged: [] });
  return r.body.error!;
}

describe("POST /api/models/upload", () => {
  it("a good upload, streamed in 1 KiB chunks: stored under its sha256, analysed, version 1, audited", async () => {
    const name = `tiny-cnn-${suffix()}`;
    const r = await upload(cnn, { name, fileName: "tiny_cnn.onnx", chunked: true });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      sha256: sha(cnn),
      bytes: cnn.length,
      deduplicated: false,
      flops: "counted",
      version: { number: 1 },
      model: { name, created: true },
    });
    const version = await db().modelVersion.findFirstOrThrow({
      where: { model: { name } },
      include: { artifact: true },
    });
    expect(version).toMatchObject({ number: 1, source: "upload", artifactSha256: sha(cnn), syntheticWeights: true });
    expect(Number(version.artifact.bytes)).toBe(cnn.length);
    const analysis = readStoredAnalysis(version.analysis)!;
    // The tiny CNN: 1,570 parameters; 1,044,800 FLOPs per sample (442,368 + 8,192 + 589,824 + 4,096 + 320).
    expect(analysis.summary.parameters.parameters).toBe(1_570);
    expect(analysis.flops).toMatchObject({ status: "counted", perSample: { total: 1_044_800 } });
    expect(analysis.validation.inputNames).toEqual(["input"]);
    expect(await store.has(sha(cnn))).toBe(true);
    expect(readdirSync(join(root, "artifacts", "staging"))).toEqual([]);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: "model.upload", targetLabel: name } });
    expect(event.after).toMatchObject({
      version: 1,
      sha256: sha(cnn),
      fileName: "tiny_cnn.onnx",
      source: "upload",
      modelCreated: true,
    });
  });

  it("the same file twice: one version, one artifact, one file; under another name it shares the file", async () => {
    const name = `dup-${suffix()}`;
    const first = await upload(cnn, { name });
    expect(first.status).toBe(201);
    const filesBefore = await store.list();
    const again = await upload(cnn, { name, chunked: true });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      deduplicated: true,
      version: { number: (first.body.version as { number: number }).number },
    });
    expect(await db().modelVersion.count({ where: { model: { name } } })).toBe(1);
    const other = await upload(cnn, { name: `${name}-b` });
    expect(other.status).toBe(201);
    expect(await db().artifact.count({ where: { sha256: sha(cnn) } })).toBe(1);
    expect(await db().modelVersion.count({ where: { artifactSha256: sha(cnn) } })).toBeGreaterThanOrEqual(2);
    expect(await store.list()).toEqual(filesBefore);
    expect(await db().auditEvent.count({ where: { action: "model.upload", targetLabel: name } })).toBe(1);
  });

  it("refuses a truncated file, random bytes, text and an empty file, keeping nothing", async () => {
    const cut = await expectRejected(cnn.slice(0, Math.floor(cnn.length / 2)), "TRUNCATED");
    expect(cut.message).toMatch(/cut short/);
    expect(cut.field).toBe("file");
    await expectRejected(randomBytes(8192, 7), "NOT_ONNX", 422, { chunked: true });
    await expectRejected(new TextEncoder().encode("<html>not a model</html>"), "NOT_ONNX");
    await expectRejected(new Uint8Array(), "EMPTY");
    await expectRejected(new Uint8Array(), "EMPTY", 422, { chunked: true });
  });

  it("refuses an operator ONNX Runtime has no kernel for, a graph its type check refuses, and external data", async () => {
    const op = await expectRejected(
      oneNodeModel("Frobnicate", "com.example", [
        { domain: "", version: 17 },
        { domain: "com.example", version: 1 },
      ]),
      "UNSUPPORTED_OPERATOR",
    );
    expect(op.message).toMatch(/com\.example:Frobnicate/);
    const mismatch = await expectRejected(typeMismatchModel(), "ORT_REJECTED");
    expect(mismatch.message).toMatch(/ONNX Runtime refused/);
    const external = await expectRejected(externalDataModel(), "EXTERNAL_DATA");
    expect(external.message).toMatch(/upload the \.onnx together with its data files as one \.tar or \.zip/);
  });

  it("a .tar or .zip of a model and its external data files: stored as one bundle (201); a bad one is a 4xx naming what is wrong", async () => {
    const model = externalWeightsModel();
    const files = Object.entries(model.files).map(([name, data]) => ({ name, data }));
    const good = await upload(
      tarArchive([{ name: "m/model.onnx", data: model.onnx }, ...files.map((f) => ({ ...f, name: `m/${f.name}` }))]),
      { fileName: "m.tar", chunked: true },
    );
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    expect(good.body).toMatchObject({ format: "onnx-bundle", dataFiles: ["data/weights.bin", "v.bin"] });
    const escape = await expectRejected(
      zipArchive([{ name: "model.onnx", data: model.onnx }, ...files, { name: "../x.bin", data: Buffer.from("x") }]),
      "BAD_ARCHIVE",
    );
    expect(escape.message).toMatch(/entry "\.\.\/x\.bin" climbs out of the model's directory/);
    const missing = await expectRejected(
      zipArchive([{ name: "model.onnx", data: model.onnx }, files[0]!]),
      "EXTERNAL_DATA",
    );
    expect(missing.message).toMatch(/tensor "V": its data file "v\.bin" is not in the archive/);
    const two = await expectRejected(
      tarArchive([{ name: "a.onnx", data: model.onnx }, { name: "b.onnx", data: model.onnx }, ...files]),
      "BAD_ARCHIVE",
    );
    expect(two.message).toMatch(/holds 2 \.onnx files \(a\.onnx, b\.onnx\)/);
    limits = { ...normalLimits, archiveMaxBytes: 2048 };
    try {
      const big = await expectRejected(
        tarArchive([{ name: "model.onnx", data: model.onnx }, ...files]),
        "TOO_LARGE",
        413,
      );
      expect(big.message).toMatch(/MODEL_ARCHIVE_MAX_BYTES/);
    } finally {
      limits = normalLimits;
    }
  });

  it("over the limit: refused from Content-Length before reading, or mid-stream when chunked; nothing stored", async () => {
    limits = { ...normalLimits, maxBytes: 4096 };
    try {
      // The CNN is 7,750 bytes > 4,096.
      const declared = await expectRejected(cnn, "TOO_LARGE", 413);
      expect(declared.message).toMatch(/limit of 0\.0 MiB|limit of/);
      await expectRejected(cnn, "TOO_LARGE", 413, { chunked: true });
    } finally {
      limits = normalLimits;
    }
  });

  it("an upload cut off by the client (socket closed mid-body) is TRUNCATED and leaves nothing", async () => {
    const before = await snapshot();
    handled.length = 0;
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${base}/api/models/upload?name=cut-${suffix()}`, {
        method: "POST",
        headers: {
          origin: ORIGIN,
          cookie: cookies.ml,
          "content-type": "application/octet-stream",
          "content-length": String(cnn.length),
        },
      });
      req.on("error", () => resolve());
      req.write(cnn.slice(0, 3000), () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100),
      );
    });
    for (let i = 0; i < 100 && handled.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(handled[0]?.status).toBe(422);
    expect(((await handled[0]!.json()) as { error: { code: string } }).error.code).toBe("TRUNCATED");
    expect(await snapshot()).toEqual({ ...before, staged: [] });
  });

  it("model names with odd characters are refused before a byte is read; an odd file name is only recorded", async () => {
    for (const name of ["../../etc/passwd", "my model", "résumé", "a/b", "emoji-😀", ""]) {
      const r = await expectRejected(cnn, "INVALID_INPUT", 400, { name });
      expect(r.field).toBe("name");
    }
    const fileName = `../Ünïcödé "quoted" & <tagged>/model 😀.onnx`;
    const name = `odd-file-${suffix()}`;
    const r = await upload(cnn, { name, fileName });
    expect(r.status).toBe(201);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: "model.upload", targetLabel: name } });
    expect((event.after as { fileName: string }).fileName).toBe(fileName);
    // Stored by content only: the name reaches no path.
    expect(await store.list()).toContain(sha(cnn));
  });

  it("dynamic dimensions: a malformed dims parameter is refused; a value reaches the analysis", async () => {
    expect((await upload(cnn, { dims: "sequence" })).body.error).toMatchObject({
      code: "INVALID_INPUT",
      field: "dims",
    });
    const transformer = zooEntry("tiny-transformer").build();
    const name = `tt-${suffix()}`;
    const r = await upload(transformer, { name, dims: "sequence=8" });
    expect(r.status).toBe(201);
    const version = await db().modelVersion.findFirstOrThrow({ where: { model: { name } } });
    expect(version.servingDims).toEqual({ sequence: 8 });
    // At S = 8 the tiny transformer costs 475,136 FLOPs per sample (analyze-model.test.ts works it out).
    expect(readStoredAnalysis(version.analysis)!.flops).toMatchObject({
      status: "counted",
      perSample: { total: 475_136 },
    });
  });

  it("the watchdog kills a validation past its memory or time limit; the control plane stays up", async () => {
    limits = { ...normalLimits, validateMaxRssBytes: 16 * 1024 ** 2 };
    try {
      const memory = await expectRejected(cnn, "MEMORY_LIMIT", 422, { name: `mem-${suffix()}` });
      expect(memory.message).toMatch(/more than 16 MiB/);
      limits = { ...normalLimits, validateTimeoutMs: 1 };
      const slow = await expectRejected(cnn, "TIMEOUT", 422, { name: `slow-${suffix()}` });
      expect(slow.message).toMatch(/longer than 1 ms/);
    } finally {
      limits = normalLimits;
    }
    // Still serving: the next upload goes through.
    const after = await upload(zooEntry("tiny-mlp").build(), { name: `after-${suffix()}` });
    expect(after.status).toBe(201);
  });

  it("streams: 192 MiB of body pass through with the process's memory growing by a small fraction of that", async () => {
    limits = { ...normalLimits, maxBytes: 256 * 1024 ** 2 };
    const chunk = new Uint8Array(1024 ** 2); // one buffer, sent 192 times: the client side holds 1 MiB
    let peak = 0;
    const start = process.memoryUsage();
    const baseline = start.heapUsed + start.arrayBuffers;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.heapUsed + m.arrayBuffers - baseline);
    }, 10);
    try {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 192) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const before = await snapshot();
      const response = await fetch(`${base}/api/models/upload?name=stream-${suffix()}`, {
        method: "POST",
        headers: { origin: ORIGIN, cookie: cookies.ml, "content-type": "application/octet-stream" },
        body,
        duplex: "half",
      } as RequestInit);
      // 192 MiB of zeros: a protobuf tag of 0 is no field, so validation calls it NOT_ONNX; nothing is kept.
      expect(response.status).toBe(422);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("NOT_ONNX");
      expect(await snapshot()).toEqual({ ...before, staged: [] });
    } finally {
      clearInterval(sampler);
      limits = normalLimits;
    }
    // Buffered, the body alone would add 192 MiB; streamed, the growth (about 34 MiB here: chunks awaiting GC) stays under half.
    expect(peak).toBeLessThan(96 * 1024 ** 2);
  });

  it("the same gate as every change: session, role, Origin, content type and method", async () => {
    const cases: Array<[UploadOptions, number, string]> = [
      [{ cookie: "" }, 401, "UNAUTHORIZED"],
      [{ cookie: cookies.sre }, 403, "FORBIDDEN"],
      [{ origin: "http://evil.example" }, 403, "FORBIDDEN"],
      [{ origin: null }, 403, "FORBIDDEN"],
      [{ type: "application/json" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
      [{ type: "multipart/form-data; boundary=x" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
      [{ method: "GET" }, 405, "METHOD_NOT_ALLOWED"],
    ];
    for (const [options, status, code] of cases) {
      const before = await snapshot();
      const r = await upload(cnn, options);
      expect({ options, status: r.status, code: r.body.error?.code }).toEqual({ options, status, code });
      expect(await snapshot()).toEqual(before);
    }
    expect((await upload(cnn, { cookie: cookies.admin, name: `admin-${suffix()}` })).status).toBe(201);
  });
});
