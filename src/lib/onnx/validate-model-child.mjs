// The upload validator's child process (plain JavaScript, so it runs under bare `node` wherever the app runs):
// reads a file, decides whether it is a self-contained ONNX model (or, unpacked from an archive, one whose external
// data files all lie beside it), and creates an ONNX Runtime session from it the
// way an agent will. One IPC request ({path, withDataFiles}), one answer. The parent kills it past its time or memory limit.
import { lstatSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

process.on("exit", () => {
  for (const dir of new Set(["/tmp", tmpdir()])) {
    try {
      rmSync(join(dir, `mat-debug-${process.pid}.log`), { force: true });
    } catch {
      /* the parent removes it too */
    }
  }
});

// ModelProto's top-level fields: number → wire type (0 varint, 2 length-delimited). onnx.proto3, IR 10.
const MODEL_FIELDS = new Map([
  [1, 0],
  [2, 2],
  [3, 2],
  [4, 2],
  [5, 0],
  [6, 2],
  [7, 2],
  [8, 2],
  [14, 2],
  [20, 2],
  [25, 2],
]);

function readVarint(bytes, pos) {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos + i >= bytes.length) return { end: true };
    const b = bytes[pos + i];
    value += (b & 0x7f) * scale;
    scale *= 128;
    if ((b & 0x80) === 0) return { value, next: pos + i + 1 };
  }
  return { bad: true };
}

/**
 * Why bytes that protobuf could not decode are no model: walking the top-level fields, a file whose fields are all
 * ModelProto's and whose last field runs past the end was cut short (truncated); anything else is not ONNX.
 */
function classifyUndecodable(bytes) {
  let pos = 0;
  let fields = 0;
  while (pos < bytes.length) {
    const tag = readVarint(bytes, pos);
    if (tag.end) return fields > 0 ? "TRUNCATED" : "NOT_ONNX";
    if (tag.bad) return "NOT_ONNX";
    const field = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    if (MODEL_FIELDS.get(field) !== wire) return "NOT_ONNX";
    pos = tag.next;
    const body = readVarint(bytes, pos);
    if (body.end) return "TRUNCATED";
    if (body.bad) return "NOT_ONNX";
    pos = body.next;
    if (wire === 2) {
      if (pos + body.value > bytes.length) return "TRUNCATED";
      pos += body.value;
    }
    fields += 1;
  }
  // Every top-level field is whole: the damage is inside one of them.
  return "NOT_ONNX";
}

const UNSUPPORTED = [
  /(\S+?)\(-?\d+\) is not a registered function\/op/,
  /No Op registered for (\S+) with domain_version/,
  /Could not find an implementation for (\S+?)\(/,
];

// With the answer, this process's peak resident memory (maxRSS is in KiB): the parent's /proc sampling can miss
// a child that answers and exits between two samples.
function reply(message) {
  process.send({ ...message, peakRssBytes: process.resourceUsage().maxRSS * 1024 }, () => process.exit(0));
}

function reject(code, message, extra = {}) {
  reply({ ok: false, code, message, ...extra });
}

/** Every tensor whose data lives in an external file (initializers, sparse ones, node attributes, subgraphs). */
function externalTensors(graph, onnx, out = []) {
  const add = (t, name) => {
    if (t?.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL) out.push({ tensor: t, name: t.name || name });
  };
  for (const t of graph?.initializer ?? []) add(t, "initializer");
  // Sparse tensors too: ONNX Runtime refused those with a message about its graph constructor, not about the file.
  for (const s of graph?.sparseInitializer ?? []) {
    add(s.values, "sparse initializer");
    add(s.indices, "sparse initializer");
  }
  for (const node of graph?.node ?? []) {
    for (const a of node.attribute ?? []) {
      if (a.g) externalTensors(a.g, onnx, out);
      for (const g of a.graphs ?? []) externalTensors(g, onnx, out);
      add(a.t, a.name);
      for (const t of a.tensors ?? []) add(t, a.name);
      add(a.sparseTensor?.values, a.name);
      add(a.sparseTensor?.indices, a.name);
    }
  }
  return out;
}

/**
 * Checks every external tensor against the model's directory (an unpacked archive's): its location is a relative
 * path that stays inside the directory and names a regular file there, and offset and length lie within that file
 * and hold as many bytes as the tensor's dims declare. Returns the files named, or a refusal naming the tensor.
 */
function checkExternalData(external, modelPath) {
  const dir = dirname(modelPath);
  const files = new Map();
  for (const { tensor, name } of external) {
    const keys = Object.fromEntries((tensor.externalData ?? []).map((e) => [e.key, e.value]));
    const where = `tensor "${name}"`;
    const location = keys.location;
    if (typeof location !== "string" || location === "")
      return { problem: `${where} is marked external but names no location` };
    const problem = locationProblem(location);
    if (problem) return { problem: `${where}: its external data location "${location}" ${problem}` };
    const relative = location
      .split("/")
      .filter((p) => p !== "" && p !== ".")
      .join("/");
    const path = join(dir, relative);
    if (relative === "model.onnx" || !path.startsWith(`${dir}/`))
      return { problem: `${where}: its external data location "${location}" is not a data file beside the model` };
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return {
        problem: `${where}: its data file "${location}" is not in the archive (it must sit at that path relative to the .onnx)`,
      };
    }
    if (!stat.isFile()) return { problem: `${where}: its data file "${location}" is not a regular file` };
    const offset = keys.offset === undefined ? 0 : Number(keys.offset);
    const length = keys.length === undefined ? undefined : Number(keys.length);
    if (!Number.isSafeInteger(offset) || offset < 0)
      return { problem: `${where}: its external data offset "${keys.offset}" is not a byte offset` };
    if (length !== undefined && (!Number.isSafeInteger(length) || length < 0))
      return { problem: `${where}: its external data length "${keys.length}" is not a byte count` };
    const dims = (tensor.dims ?? []).map(asNumber);
    const elements = dims.reduce((a, b) => a * b, 1);
    const size = RAW_BYTES[tensor.dataType ?? 0];
    if (!Number.isSafeInteger(elements) || dims.some((d) => !Number.isSafeInteger(d) || d < 0))
      return { problem: `${where} declares dimensions [${dims.join(", ")}], which are not sizes` };
    const expected =
      size === undefined || size === 0 ? undefined : size === 0.5 ? Math.ceil(elements / 2) : elements * size;
    const span = length ?? expected ?? stat.size - offset;
    if (offset + span > stat.size) {
      return {
        problem: `${where}: bytes ${offset}–${offset + span} of "${location}" are wanted, but the file has ${stat.size} bytes`,
      };
    }
    if (expected !== undefined && length !== undefined && length !== expected) {
      return {
        problem: `${where} declares [${dims.join(", ")}] (${expected} bytes) but its external data length is ${length}`,
      };
    }
    files.set(relative, stat.size);
  }
  return { files: [...files.keys()] };
}

function locationProblem(path) {
  if (path.includes("\u0000")) return "contains a NUL character";
  if (path.includes("\\")) return "contains a backslash (paths use /)";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "is an absolute path";
  if (path.split("/").includes("..")) return "climbs out of the model's directory (..)";
  return undefined;
}

// Bytes per element of raw_data by TensorProto.DataType (0.5: two 4-bit values per byte); STRING has no raw form.
const RAW_BYTES = {
  1: 4,
  2: 1,
  3: 1,
  4: 2,
  5: 2,
  6: 4,
  7: 8,
  9: 1,
  10: 2,
  11: 8,
  12: 4,
  13: 8,
  14: 8,
  15: 16,
  16: 2,
  17: 1,
  18: 1,
  19: 1,
  20: 1,
  21: 0.5,
  22: 0.5,
  23: 0.5,
};
const asNumber = (v) => (typeof v === "number" ? v : typeof v?.toNumber === "function" ? v.toNumber() : Number(v));

/**
 * Why an embedded tensor's data cannot be what its dims declare, or undefined. ONNX Runtime checks this only for
 * the tensors a node uses: a 112-byte file declaring an unused [2^40, 4] double initializer loaded, and the
 * registry recorded 4.4 × 10^12 parameters for it (fuzzer, issue #23).
 */
function tensorProblem(t) {
  if (!t || t.dataLocation === 1) return undefined; // external data has its own refusal
  const dims = (t.dims ?? []).map(asNumber);
  if (dims.some((d) => !Number.isSafeInteger(d) || d < 0))
    return `declares dimensions [${dims.join(", ")}], which are not sizes`;
  const elements = dims.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(elements)) return `declares [${dims.join(", ")}]: more elements than any file holds`;
  const type = t.dataType ?? 0;
  const raw = t.rawData?.length ?? 0;
  if (raw > 0) {
    const size = RAW_BYTES[type];
    if (size === undefined) return undefined; // a type this check does not know: ONNX Runtime decides
    const expected = size === 0.5 ? Math.ceil(elements / 2) : elements * size;
    return raw === expected ? undefined : `declares [${dims.join(", ")}] (${expected} bytes) but carries ${raw} bytes`;
  }
  const stored = Math.max(
    t.floatData?.length ?? 0,
    t.int32Data?.length ?? 0,
    t.int64Data?.length ?? 0,
    t.doubleData?.length ?? 0,
    t.uint64Data?.length ?? 0,
    t.stringData?.length ?? 0,
  );
  const perElement = type === 14 || type === 15 ? 2 : 1; // complex: real and imaginary parts
  const expected = RAW_BYTES[type] === 0.5 ? Math.ceil(elements / 2) : elements * perElement;
  return stored === expected ? undefined : `declares [${dims.join(", ")}] (${expected} values) but carries ${stored}`;
}

/** The first embedded tensor (initializers, sparse ones, node attributes, in every subgraph) whose data is wrong. */
function inconsistentTensor(graph) {
  const check = (t, what) => {
    const problem = tensorProblem(t);
    return problem ? `${what} "${t.name ?? ""}" ${problem}` : undefined;
  };
  for (const t of graph?.initializer ?? []) {
    const p = check(t, "initializer");
    if (p) return p;
  }
  for (const s of graph?.sparseInitializer ?? []) {
    const p = check(s.values, "sparse initializer") ?? check(s.indices, "sparse initializer indices");
    if (p) return p;
  }
  for (const node of graph?.node ?? []) {
    for (const a of node.attribute ?? []) {
      const what = `attribute ${a.name ?? ""} of node "${node.name ?? node.opType ?? ""}":`;
      const p =
        check(a.t, what) ??
        (a.tensors ?? []).map((t) => check(t, what)).find(Boolean) ??
        check(a.sparseTensor?.values, what) ??
        check(a.sparseTensor?.indices, what) ??
        (a.g ? inconsistentTensor(a.g) : undefined) ??
        (a.graphs ?? []).map(inconsistentTensor).find(Boolean);
      if (p) return p;
    }
  }
  return undefined;
}

process.once("message", async (request) => {
  try {
    const { onnx } = require("onnx-proto");
    let bytes = readFileSync(request.path);
    if (bytes.length === 0) return reject("EMPTY", "the file is empty");
    let model;
    try {
      model = onnx.ModelProto.decode(bytes);
    } catch (error) {
      const code = classifyUndecodable(bytes);
      return reject(
        code,
        code === "TRUNCATED"
          ? `the file ends in the middle of the model (${bytes.length} bytes): it was cut short`
          : `not an ONNX model (protobuf decoding failed: ${String(error?.message ?? error)})`,
      );
    }
    const irVersion = Number(model.irVersion ?? 0);
    if (!model.graph || irVersion <= 0 || (model.opsetImport ?? []).length === 0) {
      return reject("NOT_ONNX", "not an ONNX model (it decodes, but has no graph, IR version or opset import)");
    }
    const external = externalTensors(model.graph, onnx);
    let dataFiles = [];
    if (external.length > 0 && !request.withDataFiles) {
      const names = external.map((e) => e.name);
      return reject(
        "EXTERNAL_DATA",
        `the model keeps ${names.length} tensor(s) in external data files (${names.slice(0, 3).join(", ")}` +
          `${names.length > 3 ? ", …" : ""}); upload the .onnx together with its data files as one .tar or .zip`,
      );
    }
    if (external.length > 0) {
      const checked = checkExternalData(external, request.path);
      if (checked.problem) return reject("EXTERNAL_DATA", checked.problem);
      dataFiles = checked.files;
    }
    const inconsistent = inconsistentTensor(model.graph);
    if (inconsistent) return reject("NOT_ONNX", `not a valid ONNX model: ${inconsistent}`);
    bytes = undefined;
    model = undefined;

    const ort = require("onnxruntime-node");
    const started = performance.now();
    let session;
    try {
      // As an agent's instance creates it (optimizations on), so what loads here loads there.
      session = await ort.InferenceSession.create(request.path, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: "sequential",
        logSeverityLevel: 3,
      });
    } catch (error) {
      const message = String(error?.message ?? error);
      for (const pattern of UNSUPPORTED) {
        const m = message.match(pattern);
        if (m)
          return reject("UNSUPPORTED_OPERATOR", `ONNX Runtime has no kernel for operator ${m[1]}: ${message}`, {
            operator: m[1],
          });
      }
      return reject("ORT_REJECTED", `ONNX Runtime refused the model: ${message}`);
    }
    const loadMs = performance.now() - started;
    const answer = {
      ok: true,
      loadMs,
      inputNames: [...session.inputNames],
      outputNames: [...session.outputNames],
      dataFiles,
    };
    await session.release?.();
    reply(answer);
  } catch (error) {
    // Not the file's doing (a module that does not load, a bug here): the uploader reads that validation failed, the
    // server's log reads why.
    reject("VALIDATION_FAILED", "validation failed inside the sandbox process", {
      diagnostics: String(error?.stack ?? error?.message ?? error).slice(0, 2000),
    });
  }
});
