// Import by URL against a real HTTP server on 127.0.0.1 and the real database: a served model becomes a version
// exactly as an upload would (stored under its sha256, analysed, audited), and every refusal (a loopback address
// not on the allow-list, a scheme, the remote's status, a redirect, size, time, not ONNX) is a 400 that names what
// was wrong and leaves no row, no stored file and no staged file behind.
import { zipArchive } from "@/lib/model-bundle/test-archives";
import { externalWeightsModel } from "@/lib/onnx/wild-models";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "@/lib/onnx/test-models";
import { zooEntry } from "@/modelzoo/registry";
import { FileArtifactStore } from "@/server/artifacts/artifact-store";
import type { SessionUser } from "@/server/auth/session";
import { insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { DomainError } from "@/server/errors/domain-errors";
import { readStoredAnalysis } from "./models-analysis";
import { importLimits, importModelFromUrl, type ImportLimits, type ModelImport } from "./models-import-service";
import { testEnv } from "../../../test/test-env";

const root = mkdtempSync(join(tmpdir(), "import-test-"));
const store = new FileArtifactStore(join(root, "artifacts"));
const cnn = zooEntry("tiny-cnn").build();
const junk = randomBytes(4096);
const external = externalWeightsModel();
const externalZip = zipArchive([
  { name: "model.onnx", data: external.onnx },
  ...Object.entries(external.files).map(([name, data]) => ({ name, data, deflate: true })),
]);
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const suffix = () => Math.random().toString(36).slice(2, 8);

let server: Server;
let base = "";
const hits: string[] = [];
let ml: SessionUser;

beforeAll(async () => {
  // The admin's allow-list opens the test server's loopback address; http:// is allowed for it.
  Object.assign(testEnv, { PACKRAT_OUTBOUND_ALLOW: "127.0.0.1", MODEL_IMPORT_ALLOW_HTTP: "true", LOG_LEVEL: "error" });
  resetEnvForTests();
  ml = await insertTestUser(db(), "ml_engineer");
  server = createServer((req, res) => {
    hits.push(req.url ?? "");
    const path = (req.url ?? "").split("?")[0];
    if (path === "/tiny_cnn.onnx")
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": cnn.length }).end(cnn);
    else if (path === "/chunked.onnx") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let i = 0; i < cnn.length; i += 1024) res.write(cnn.subarray(i, i + 1024));
      res.end();
    } else if (path === "/with-data.zip") res.writeHead(200, { "content-length": externalZip.length }).end(externalZip);
    else if (path === "/junk.onnx") res.writeHead(200, { "content-length": junk.length }).end(junk);
    else if (path === "/moved") res.writeHead(302, { location: `${base}/tiny_cnn.onnx` }).end();
    else if (path === "/stall") {
      res.writeHead(200, { "content-length": cnn.length });
      res.write(cnn.subarray(0, 100)); /* never ends */
    } else res.writeHead(404, "Not Found").end("no such file");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  delete testEnv.PACKRAT_OUTBOUND_ALLOW;
  delete testEnv.MODEL_IMPORT_ALLOW_HTTP;
  resetEnvForTests();
  rmSync(root, { recursive: true, force: true });
});

const caller = () => ({ user: ml, requestId: "import-test" });
const run = (request: Partial<ModelImport> & { url: string }, limits?: Partial<ImportLimits>) =>
  importModelFromUrl(
    caller(),
    { name: `m-${suffix()}`, ...request },
    { store, limits: { ...importLimits(), ...limits } },
  );

/** Refused with a 400 whose message matches; nothing of it stays behind. */
async function expectRefused(
  request: Partial<ModelImport> & { url: string },
  message: RegExp,
  limits?: Partial<ImportLimits>,
) {
  const name = `refused-${suffix()}`;
  const files = (await store.list()).sort();
  const error = await run({ name, ...request }, limits).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe("INVALID_INPUT");
  expect((error as Error).message).toMatch(message);
  expect(await db().model.count({ where: { name } })).toBe(0);
  expect((await store.list()).sort()).toEqual(files);
  expect(readdirSync(join(root, "artifacts", "staging"))).toEqual([]);
  return error as DomainError;
}

describe("import a model by URL", () => {
  it("a served model becomes version 1, stored under its sha256, analysed and audited as an import", async () => {
    const name = `tiny-cnn-${suffix()}`;
    const result = await run({ name, url: `${base}/tiny_cnn.onnx?token=secret` });
    expect(result).toMatchObject({
      sha256: sha(cnn),
      bytes: cnn.length,
      deduplicated: false,
      flops: "counted",
      version: { number: 1 },
      model: { name, created: true },
    });
    // The query (which may hold a token) is not kept.
    expect(result.source).toBe(`${base}/tiny_cnn.onnx`);
    const version = await db().modelVersion.findFirstOrThrow({ where: { model: { name } } });
    expect(version.artifactSha256).toBe(sha(cnn));
    // The tiny CNN: 1,570 parameters, as the upload test counts them.
    expect(readStoredAnalysis(version.analysis)!.summary.parameters.parameters).toBe(1_570);
    expect(await store.has(sha(cnn))).toBe(true);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: "model.import", targetLabel: name } });
    expect(event.after).toMatchObject({ version: 1, sha256: sha(cnn), fileName: `${base}/tiny_cnn.onnx` });
    expect(JSON.stringify([event.before, event.after])).not.toContain("secret");
  });

  it("a .zip of a model and its external data files is imported as one bundle, like an upload", async () => {
    const result = await run({ url: `${base}/with-data.zip` });
    expect(result).toMatchObject({
      format: "onnx-bundle",
      dataFiles: ["data/weights.bin", "v.bin"],
      flops: "counted",
      source: `${base}/with-data.zip`,
    });
    const version = await db().modelVersion.findUniqueOrThrow({
      where: { id: result.version.id },
      include: { artifact: true },
    });
    expect(version.artifact.format).toBe("onnx-bundle");
    expect(readStoredAnalysis(version.analysis)!.summary.parameters.parameters).toBe(208);
  });

  it("a body without Content-Length is streamed and stored the same", async () => {
    const result = await run({ url: `${base}/chunked.onnx` });
    expect(result).toMatchObject({ sha256: sha(cnn), bytes: cnn.length });
  });

  it("without the allow-list entry the loopback address is refused before a byte is sent", async () => {
    testEnv.PACKRAT_OUTBOUND_ALLOW = "";
    resetEnvForTests();
    try {
      const before = hits.length;
      await expectRefused(
        { url: `${base}/tiny_cnn.onnx` },
        /refused to connect to 127\.0\.0\.1: a loopback address; allow it with PACKRAT_OUTBOUND_ALLOW/,
      );
      await expectRefused({ url: "http://169.254.169.254/latest/meta-data/" }, /metadata address/);
      expect(hits.length).toBe(before);
    } finally {
      testEnv.PACKRAT_OUTBOUND_ALLOW = "127.0.0.1";
      resetEnvForTests();
    }
  });

  it("refuses plain http:// unless an admin allows it, and schemes other than http(s)", async () => {
    const before = hits.length;
    await expectRefused({ url: `${base}/tiny_cnn.onnx` }, /plain http:\/\/ imports are off.*MODEL_IMPORT_ALLOW_HTTP/, {
      allowHttp: false,
    });
    await expectRefused({ url: "file:///etc/passwd" }, /only https:\/\/ URLs can be imported \(got file:\)/);
    await expectRefused({ url: "not a url" }, /is not a URL/);
    expect(hits.length).toBe(before);
  });

  it("names the remote's status and refuses a redirect without following it", async () => {
    await expectRefused({ url: `${base}/missing.onnx` }, /answered HTTP 404 Not Found, not the model/);
    const before = hits.length;
    await expectRefused(
      { url: `${base}/moved` },
      /answered HTTP 302, a redirect to http:\/\/127\.0\.0\.1:\d+\/tiny_cnn\.onnx; redirects are not followed/,
    );
    expect(hits.slice(before)).toEqual(["/moved"]);
  });

  it("refuses a file over the upload limit, declared or streamed, and a file that is not ONNX", async () => {
    await expectRefused({ url: `${base}/tiny_cnn.onnx` }, /larger than the upload limit .*MODEL_UPLOAD_MAX_BYTES/, {
      maxBytes: 1024,
    });
    await expectRefused({ url: `${base}/chunked.onnx` }, /larger than the upload limit .*MODEL_UPLOAD_MAX_BYTES/, {
      maxBytes: 1024,
    });
    const error = await expectRefused({ url: `${base}/junk.onnx` }, /./);
    expect(error.details).toMatchObject({ field: "file" });
    expect(["NOT_ONNX", "VALIDATION_FAILED"]).toContain(error.details?.code);
  });

  it("stops a download that runs past its time limit and keeps nothing", async () => {
    await expectRefused(
      { url: `${base}/stall` },
      /took longer than 300 ms \(MODEL_IMPORT_TIMEOUT_MS\); nothing was kept/,
      { downloadTimeoutMs: 300 },
    );
  });

  it("checks the name before downloading", async () => {
    const before = hits.length;
    await expectRefused({ url: `${base}/tiny_cnn.onnx`, name: "" }, /name/);
    expect(hits.length).toBe(before);
  });
});
