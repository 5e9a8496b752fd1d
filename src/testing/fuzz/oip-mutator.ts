// Malformed Open Inference Protocol (KServe v2) requests, one seed each: a valid request for the model is built,
// then broken in exactly one way of the class asked for. Every variant is invalid by construction (the comment on
// each says why), so a server that answers one of them 2xx has a bug, and so does one that answers 5xx.
import { OIP_DATATYPES, type OipDatatype } from "@/contracts/oip-datatypes";
import { FuzzInputError, FuzzRandom } from "./fuzz-random";
import type { RawHttpRequest } from "./raw-http";

export const OIP_FUZZ_CLASSES = [
  "bad-json",
  "wrong-shape",
  "wrong-datatype",
  "lying-binary-length",
  "huge-dims",
  "deep-nesting",
  "long-unicode-names",
  "wrong-content-type",
  "truncated-body",
] as const;
export type OipFuzzClass = (typeof OIP_FUZZ_CLASSES)[number];

const DATATYPES = Object.keys(OIP_DATATYPES) as OipDatatype[];
const BYTES: Readonly<Record<string, number>> = Object.fromEntries(DATATYPES.map((d) => [d, OIP_DATATYPES[d].bytes]));

/** What the fuzzer needs to know of the served model (as GET /v2/models/NAME reports it; -1 = dynamic). */
export interface OipModelSpec {
  name: string;
  /** The version served (default "1"). */
  version?: string;
  inputs: Array<{ name: string; datatype: string; shape: number[] }>;
  outputs: Array<{ name: string }>;
}

export interface OipFuzzRequest extends RawHttpRequest {
  cls: OipFuzzClass;
  seed: number;
  /** Which way it was broken, e.g. "shape rank minus one". */
  variant: string;
}

interface Tensor {
  name: string;
  shape: unknown;
  datatype: unknown;
  data?: unknown;
  parameters?: Record<string, unknown>;
}
/** A request before serialization: the JSON document and, for binary requests, each input's payload in order. */
interface Draft {
  doc: { id?: unknown; parameters?: Record<string, unknown>; inputs: Tensor[]; outputs?: unknown[] };
  payloads?: Buffer[];
}

const SENTINEL = "__packrat_fuzz_literal__";

function requireSpec(model: OipModelSpec): void {
  if (model.inputs.length === 0)
    throw new FuzzInputError("empty", "model.inputs", "the model needs at least one input");
  if (model.inputs.some((i) => !(i.datatype in BYTES)))
    throw new FuzzInputError("out_of_range", "model.inputs", "every input needs an OIP datatype");
}

function value(random: FuzzRandom, datatype: string): number | boolean {
  if (datatype === "BOOL") return random.chance(0.5);
  if (datatype.startsWith("FP")) return Math.round(random.normal() * 100) / 100;
  return random.intBetween(0, 9);
}

function nest(values: unknown[], dims: number[]): unknown {
  if (dims.length <= 1) return values;
  const step = values.length / dims[0]!;
  return Array.from({ length: dims[0]! }, (_, i) => nest(values.slice(i * step, (i + 1) * step), dims.slice(1)));
}

function payloadOf(values: Array<number | boolean>, datatype: string): Buffer {
  const size = BYTES[datatype]!;
  const out = Buffer.alloc(values.length * size);
  values.forEach((v, i) => {
    const n = typeof v === "boolean" ? Number(v) : v;
    if (datatype === "FP32") out.writeFloatLE(n, i * 4);
    else if (datatype === "FP64") out.writeDoubleLE(n, i * 8);
    else if (size === 8) out.writeBigInt64LE(BigInt(n), i * 8);
    else out.writeUIntLE(n, i * size, size);
  });
  return out;
}

/** A valid request: 1–2 rows, other dynamic dimensions 1–3, JSON (flat or nested) or binary tensors. */
function validDraft(random: FuzzRandom, model: OipModelSpec, binary: boolean): Draft {
  const rows = random.intBetween(1, 2);
  const nested = random.chance(0.3);
  const payloads: Buffer[] = [];
  const inputs = model.inputs.map((meta) => {
    const shape = meta.shape.map((d, i) => (d >= 0 ? d : i === 0 ? rows : random.intBetween(1, 3)));
    const count = shape.reduce((a, b) => a * b, 1);
    const datatype = meta.datatype === "FP16" && !binary ? "FP16" : meta.datatype;
    const values = Array.from({ length: count }, () => value(random, datatype === "FP16" ? "UINT16" : datatype));
    if (binary || datatype === "FP16") {
      payloads.push(payloadOf(values, datatype === "FP16" ? "UINT16" : datatype));
      return { name: meta.name, shape, datatype, parameters: { binary_data_size: count * BYTES[datatype]! } };
    }
    return { name: meta.name, shape, datatype, data: nested ? nest(values, shape) : values };
  });
  return { doc: { id: `fuzz-${random.seed}`, inputs }, payloads: payloads.length ? payloads : undefined };
}

function serialize(
  draft: Draft,
  literal?: string,
): { body: Buffer; headers: Array<[string, string]>; jsonLength: number } {
  let text = JSON.stringify(draft.doc);
  if (literal !== undefined) text = text.replace(`"${SENTINEL}"`, () => literal);
  const json = Buffer.from(text, "utf8");
  if (!draft.payloads) return { body: json, headers: [["Content-Type", "application/json"]], jsonLength: json.length };
  return {
    body: Buffer.concat([json, ...draft.payloads]),
    headers: [
      ["Content-Type", "application/octet-stream"],
      ["Inference-Header-Content-Length", String(json.length)],
    ],
    jsonLength: json.length,
  };
}

function inferPath(model: OipModelSpec): string {
  return `/v2/models/${encodeURIComponent(model.name)}/infer`;
}

/** Percent-encodes the UTF-8 bytes of a string (lone surrogates become U+FFFD, where encodeURIComponent throws). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

/** A name that is none of `taken`. */
function foreignName(random: FuzzRandom, taken: string[], maxLength: number): string {
  const name = random.unicode(random.length(maxLength));
  return taken.includes(name) ? `${name}\u202e` : name;
}

/** Indices of JSON structural characters ({}[]:,) outside strings. */
function structuralPositions(text: string): number[] {
  const out: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if ("{}[]:,".includes(c!)) out.push(i);
  }
  return out;
}

function deepArray(depth: number, inner: string): string {
  return "[".repeat(depth) + inner + "]".repeat(depth);
}

function deepObject(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

type Built = Omit<OipFuzzRequest, "cls" | "seed">;
type Mutation = (random: FuzzRandom, model: OipModelSpec) => Built;

function fromDraft(model: OipModelSpec, variant: string, draft: Draft, literal?: string): Built {
  const { body, headers } = serialize(draft, literal);
  return { variant, method: "POST", path: inferPath(model), headers, body };
}

const input0 = (draft: Draft): Tensor => draft.doc.inputs[0]!;
const jsonValues = (draft: Draft): unknown[] => {
  // Flat data of input 0 (re-flattened when the draft nested it), so a value can be swapped at a known index.
  const data = input0(draft).data;
  return Array.isArray(data) ? (data.flat(Infinity) as unknown[]) : [];
};

const mutations: Record<OipFuzzClass, Mutation> = {
  "bad-json": (random, model) => {
    const draft = validDraft(random, model, false);
    const text = serialize(draft).body.toString("utf8");
    const path = inferPath(model);
    const json = (variant: string, body: Buffer | string): Built => ({
      variant,
      method: "POST",
      path,
      headers: [["Content-Type", "application/json"]],
      body: Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8"),
    });
    switch (random.intBetween(0, 9)) {
      case 0: {
        // Outside a string the lexer never accepts these characters; the prefix before them was valid.
        const at = random.pick(structuralPositions(text));
        return json(
          "structural character replaced",
          text.slice(0, at) + random.pick(["@", "#", "'", "`", ";", "="]) + text.slice(at + 1),
        );
      }
      case 1:
        return json("trailing garbage", text + random.pick([",", "}", "]", "x", "{}", "\u0000", "//"]));
      case 2: {
        // Not JSON numbers: JavaScript literals, hex, leading zeros or dots, a dangling exponent.
        const values = jsonValues(draft);
        values[random.intBetween(0, values.length - 1)] = SENTINEL;
        input0(draft).data = values;
        return fromDraft(
          model,
          "non-JSON number literal",
          draft,
          random.pick(["NaN", "Infinity", "-Infinity", "undefined", "0x10", ".5", "01", "1e", "+1", "- 1", "1_000"]),
        );
      }
      case 3:
        return json("single-quoted key", text.replace('"inputs"', "'inputs'"));
      case 4:
        return json("comment", text.replace("{", "{/* fuzz */"));
      case 5:
        return json("byte order mark", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
      case 6: {
        // An invalid UTF-8 byte decodes to U+FFFD, which is not JSON outside a string.
        const at = text.indexOf("{") + 1;
        return json(
          "invalid UTF-8 outside a string",
          Buffer.concat([
            Buffer.from(text.slice(0, at)),
            Buffer.from([random.pick([0xff, 0xfe, 0xc0, 0x80])]),
            Buffer.from(text.slice(at)),
          ]),
        );
      }
      case 7:
        return json("empty body", "");
      case 8:
        return json(
          "raw control character in a string",
          text.replace('"name":"', `"name":"${String.fromCharCode(random.intBetween(0, 0x1f))}`),
        );
      default:
        return json(
          "body is not an object",
          random.pick(["[]", "null", "42", '"inputs"', "true", '[{"inputs":[]}]', "{}"]),
        );
    }
  },

  "wrong-shape": (random, model) => {
    const binary = random.chance(0.3);
    const draft = validDraft(random, model, binary);
    const tensor = input0(draft);
    const shape = [...(tensor.shape as number[])];
    const meta = model.inputs[0]!;
    const fixed = meta.shape.map((d, i) => (d >= 0 ? i : -1)).filter((i) => i >= 0);
    const variant = random.intBetween(0, 8);
    let name: string;
    if (variant === 0 || (variant === 2 && fixed.length === 0)) {
      tensor.shape = shape.slice(0, -1);
      name = "rank minus one";
    } else if (variant === 1) {
      tensor.shape = [...shape, 1];
      name = "rank plus one";
    } else if (variant === 2) {
      const i = random.pick(fixed);
      shape[i] = shape[i]! + (shape[i]! > 1 && random.chance(0.5) ? -1 : 1);
      tensor.shape = shape;
      name = `fixed dimension ${i} off by one`;
    } else if (variant === 3) {
      shape[0] = 0;
      tensor.shape = shape;
      name = "zero batch";
    } else if (variant === 4) {
      shape[random.intBetween(0, shape.length - 1)] = -random.intBetween(1, 2 ** 31);
      tensor.shape = shape;
      name = "negative dimension";
    } else if (variant === 5) {
      shape[random.intBetween(0, shape.length - 1)] = random.pick([1.5, 0.5, 2.25]);
      tensor.shape = shape;
      name = "fractional dimension";
    } else if (variant === 6) {
      shape[random.intBetween(0, shape.length - 1)] = random.pick(["3", null, true, [1], {}] as never[]);
      tensor.shape = shape;
      name = "dimension not a number";
    } else if (variant === 7) {
      if (random.chance(0.5)) delete tensor.shape;
      else tensor.shape = random.pick([shape.join(","), {}, 4, null]);
      name = "shape missing or not an array";
    } else if (meta.shape[0]! < 0) {
      // One row more than the data (or binary_data_size) carries.
      shape[0] = shape[0]! + 1;
      tensor.shape = shape;
      name = "batch larger than the data";
    } else if (!binary) {
      const values = jsonValues(draft);
      values.pop();
      tensor.data = values;
      name = "one value missing";
    } else {
      tensor.shape = [...shape, 2];
      name = "rank plus one (binary)";
    }
    return fromDraft(model, name, draft);
  },

  "wrong-datatype": (random, model) => {
    const meta = model.inputs[0]!;
    const binary = random.chance(0.3);
    const draft = validDraft(random, model, binary);
    const tensor = input0(draft);
    const variant = binary ? random.intBetween(0, 2) : random.intBetween(0, 3);
    if (variant === 0) {
      tensor.datatype = random.pick(DATATYPES.filter((d) => d !== meta.datatype));
      return fromDraft(model, "another OIP datatype", draft);
    }
    if (variant === 1) {
      // Not OIP names (lower case, ONNX names, padding) and prototype keys a lookup table must not mistake for one.
      tensor.datatype = random.pick([
        meta.datatype.toLowerCase(),
        "FLOAT",
        "float32",
        "",
        ` ${meta.datatype}`,
        `${meta.datatype} `,
        "FP 32",
        "constructor",
        "__proto__",
        "toString",
        random.unicode(random.length(64)),
      ]);
      return fromDraft(model, "not an OIP datatype", draft);
    }
    if (variant === 2) {
      tensor.datatype = random.pick([32, null, true, [meta.datatype], { name: meta.datatype }]);
      return fromDraft(model, "datatype not a string", draft);
    }
    const values = jsonValues(draft);
    const wrong =
      meta.datatype === "BOOL"
        ? [1, "true", null, {}]
        : meta.datatype.startsWith("FP")
          ? ["1.5", true, null, {}, "NaN", []]
          : [1.5, "1", true, null, []];
    values[random.intBetween(0, values.length - 1)] = random.pick(wrong);
    tensor.data = values;
    return fromDraft(model, "a value of the wrong type", draft);
  },

  "lying-binary-length": (random, model) => {
    const draft = validDraft(random, model, true);
    const built = fromDraft(model, "", draft);
    const { jsonLength } = serialize(draft);
    const header = (value: string): Array<[string, string]> => [
      ["Content-Type", "application/octet-stream"],
      ["Inference-Header-Content-Length", value],
    ];
    const payload = draft.payloads![0]!;
    switch (random.intBetween(0, 7)) {
      case 0:
        return {
          ...built,
          variant: "header length beyond the body",
          headers: header(String(built.body.length + random.intBetween(1, 1 << 20))),
        };
      case 1:
        return {
          ...built,
          variant: "header length not a length",
          headers: header(random.pick(["-1", "abc", "1.5", "Infinity", "NaN", "12abc", "-0.5"])),
        };
      // A strict prefix of a JSON object is never JSON.
      case 2:
        return {
          ...built,
          variant: "header length inside the JSON",
          headers: header(String(random.intBetween(0, jsonLength - 1))),
        };
      case 3: {
        // Either the JSON then has binary bytes after it, or (when those bytes are whitespace) the payload is short.
        return {
          ...built,
          variant: "header length past the JSON",
          headers: header(String(jsonLength + random.intBetween(1, Math.min(64, payload.length)))),
        };
      }
      case 4: {
        const size = input0(draft).parameters!.binary_data_size as number;
        input0(draft).parameters!.binary_data_size = random.pick([
          size + random.intBetween(1, 64),
          Math.max(0, size - random.intBetween(1, size)),
          -size,
          size + 0.5,
          String(size),
          2 ** 53,
          null,
        ]);
        return fromDraft(model, "binary_data_size disagrees with the shape", draft);
      }
      case 5:
        return {
          ...fromDraft(model, "payload has extra bytes", {
            ...draft,
            payloads: [...draft.payloads!, random.bytes(random.intBetween(1, 64))],
          }),
        };
      case 6: {
        const cut = random.intBetween(1, payload.length);
        return {
          ...fromDraft(model, "payload shorter than binary_data_size", {
            ...draft,
            payloads: [payload.subarray(0, payload.length - cut), ...draft.payloads!.slice(1)],
          }),
        };
      }
      default:
        return {
          ...built,
          variant: "binary_data_size without Inference-Header-Content-Length",
          headers: [["Content-Type", "application/octet-stream"]],
        };
    }
  },

  "huge-dims": (random, model) => {
    const meta = model.inputs[0]!;
    const binary = random.chance(0.4);
    const draft = validDraft(random, model, binary);
    const tensor = input0(draft);
    const shape = [...(tensor.shape as number[])];
    const huge = random.pick([2 ** 31, 2 ** 32 + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]);
    const variant = random.intBetween(0, 3);
    if (variant === 0 || variant === 1) {
      // Data for a few rows, a shape claiming billions: the element count never matches (and nothing that size
      // may be allocated to find out). Binary requests claim the matching binary_data_size too.
      const at = variant === 0 ? 0 : random.intBetween(0, shape.length - 1);
      shape[at] = huge;
      tensor.shape = shape;
      if (binary) tensor.parameters!.binary_data_size = shape.reduce((a, b) => a * b, 1) * BYTES[meta.datatype]!;
      return fromDraft(model, variant === 0 ? "huge batch" : "huge dimension", draft);
    }
    if (variant === 2) {
      shape[random.intBetween(0, shape.length - 1)] = random.pick([1e20, 2 ** 53 + 2, 1e308, 2 ** 64]);
      tensor.shape = shape;
      return fromDraft(model, "dimension beyond 2^53", draft);
    }
    tensor.shape = Array.from({ length: random.intBetween(meta.shape.length + 1, 50_000) }, () => 1);
    return fromDraft(model, "thousands of dimensions", draft);
  },

  "deep-nesting": (random, model) => {
    const draft = validDraft(random, model, false);
    const tensor = input0(draft);
    const rank = model.inputs[0]!.shape.length;
    const depth = random.intBetween(rank + 1, random.pick([64, 5_000, 200_000]));
    const variant = random.intBetween(0, 5);
    if (variant === 0) {
      // The right values, nested deeper than the shape has dimensions.
      const values = JSON.stringify(jsonValues(draft));
      tensor.data = SENTINEL;
      return fromDraft(model, "data deeper than the shape", draft, deepArray(depth - 1, values));
    }
    if (variant === 1) {
      // The right number of values, one of them wrapped in `depth` arrays.
      const values = jsonValues(draft);
      values[random.intBetween(0, values.length - 1)] = SENTINEL;
      tensor.data = values;
      return fromDraft(model, "one value deeply nested", draft, deepArray(depth, "1"));
    }
    const deep = random.chance(0.5) ? deepArray(depth, "1") : deepObject(depth);
    if (variant === 2) {
      draft.doc.id = SENTINEL;
      return fromDraft(model, "deep id", draft, deep);
    }
    if (variant === 3) {
      tensor.shape = SENTINEL;
      return fromDraft(model, "deep shape", draft, deep);
    }
    if (variant === 4) {
      draft.doc.parameters = { deadline_ms: SENTINEL };
      return fromDraft(model, "deep parameters.deadline_ms", draft, deep);
    }
    tensor.parameters = { binary_data_size: SENTINEL };
    return fromDraft(model, "deep binary_data_size on a JSON request", draft, deep);
  },

  "long-unicode-names": (random, model) => {
    const binary = random.chance(0.3);
    const draft = validDraft(random, model, binary);
    const taken = [...model.inputs.map((i) => i.name), ...model.outputs.map((o) => o.name)];
    const built = fromDraft(model, "", draft);
    const base = `/v2/models/${encodeURIComponent(model.name)}`;
    switch (random.intBetween(0, 9)) {
      case 9:
        return {
          ...built,
          variant: "absolute-form target with a malformed host",
          path: `http://[${percentEncode(random.unicode(random.length(64)))}${base}/infer`,
        };
      case 0:
        input0(draft).name = foreignName(random, taken, 100_000);
        return fromDraft(model, "unknown input name", draft);
      case 1: {
        if (binary) {
          input0(draft).name = foreignName(random, taken, 1_000);
          return fromDraft(model, "unknown input name (binary)", draft);
        }
        draft.doc.inputs.push({ ...input0(draft), name: foreignName(random, taken, 10_000) });
        return fromDraft(model, "an extra input with a unicode name", draft);
      }
      case 2:
        draft.doc.outputs = [{ name: foreignName(random, taken, 100_000) }];
        return fromDraft(model, "unknown output name", draft);
      case 3:
        return {
          ...built,
          variant: "unknown model (percent-encoded UTF-8)",
          path: `/v2/models/${percentEncode(foreignName(random, [model.name], 2_000))}/infer`,
        };
      case 4:
        return {
          ...built,
          variant: "malformed percent-encoding in the model name",
          path: `/v2/models/${random.pick(["%", "%E0%A4%A", "%ZZ", "%C0%80", "%ED%A0%80", "a%", "%FF%FE"])}${percentEncode(random.unicode(random.length(32)))}/infer`,
        };
      case 5:
        return {
          ...built,
          variant: "raw UTF-8 in the request target",
          path: `/v2/models/${random.unicode(random.length(256)).replace(/[\s/?#%]/g, "x")}é/infer`,
        };
      case 6:
        return {
          ...built,
          variant: "request target beyond the header limit",
          path: `/v2/models/${percentEncode(random.unicode(random.intBetween(20_000, 60_000)))}/infer`,
        };
      case 7:
        return {
          ...built,
          variant: "unknown version",
          path: `${base}/versions/${percentEncode(foreignName(random, [model.version ?? "1"], 5_000))}/infer`,
        };
      default: {
        // A non-ASCII length header: not a number whatever its digits look like.
        // (CR and LF would end the header early: a different test, not this one.)
        const length = random.pick([
          "١٢",
          "１２",
          "12\u200b",
          random.unicode(random.length(64)).replace(/[\r\n]/g, "x"),
        ]);
        return {
          ...built,
          variant: "unicode Inference-Header-Content-Length",
          headers: [
            ["Content-Type", "application/octet-stream"],
            ["Inference-Header-Content-Length", length],
          ],
        };
      }
    }
  },

  "wrong-content-type": (random, model) => {
    const built = fromDraft(model, "", validDraft(random, model, random.chance(0.3)));
    const rest = built.headers.filter(([k]) => k !== "Content-Type");
    if (random.chance(0.2)) {
      return {
        ...built,
        variant: "compressed body that is not",
        headers: [...built.headers, ["Content-Encoding", random.pick(["gzip", "br", "deflate", "zstd", "compress"])]],
      };
    }
    const type = random.pick([
      "multipart/form-data; boundary=fuzz",
      "application/xml",
      "text/html",
      "image/png",
      "application/x-protobuf",
      "application/json; charset=utf-16",
      "application/json; charset=iso-8859-1",
      "text/csv",
      "application/grpc",
      "application/msgpack",
      "video/mp4",
    ]);
    return { ...built, variant: `Content-Type ${type}`, headers: [["Content-Type", type], ...rest] };
  },

  "truncated-body": (random, model) => {
    const binary = random.chance(0.3);
    const draft = validDraft(random, model, binary);
    const built = fromDraft(model, "", draft);
    const { jsonLength } = serialize(draft);
    switch (random.intBetween(0, 4)) {
      case 0: {
        // A strict prefix of a JSON object is never JSON, whatever the rest of the framing says.
        const cut = random.intBetween(0, jsonLength - 1);
        if (!binary) return { ...built, variant: "JSON cut short", body: built.body.subarray(0, cut) };
        return {
          ...built,
          variant: "JSON header cut short",
          body: Buffer.concat([built.body.subarray(0, cut), built.body.subarray(jsonLength)]),
          headers: [
            ["Content-Type", "application/octet-stream"],
            ["Inference-Header-Content-Length", String(cut)],
          ],
        };
      }
      case 1: {
        if (!binary)
          return {
            ...built,
            variant: "JSON cut short at the end",
            body: built.body.subarray(0, jsonLength - random.intBetween(1, Math.min(64, jsonLength))),
          };
        return {
          ...built,
          variant: "binary payload cut short",
          body: built.body.subarray(0, built.body.length - random.intBetween(1, built.body.length - jsonLength)),
        };
      }
      case 2:
        return {
          ...built,
          variant: "upload stops before Content-Length",
          sendBodyBytes: random.intBetween(0, built.body.length - 1),
        };
      case 3: {
        const chunk = built.body.subarray(0, random.intBetween(1, built.body.length));
        const chunked = Buffer.concat([
          Buffer.from(`${(chunk.length + random.intBetween(1, 4096)).toString(16)}\r\n`),
          chunk,
        ]);
        return {
          ...built,
          variant: "chunked upload stops mid-chunk",
          headers: [...built.headers, ["Transfer-Encoding", "chunked"]],
          body: chunked,
          sendBodyBytes: chunked.length,
        };
      }
      default: {
        // Content-Length shorter than what follows: the server reads a prefix (never JSON) and ignores the rest.
        const declared = random.intBetween(0, Math.min(jsonLength, built.body.length) - 1);
        return {
          ...built,
          variant: "Content-Length shorter than the body",
          headers: [...built.headers, ["Content-Length", String(declared)]],
        };
      }
    }
  },
};

/** The request of class `cls` for `seed`: the same bytes for the same (class, seed, model), on every run. */
export function mutateOipRequest(cls: OipFuzzClass, seed: number, model: OipModelSpec): OipFuzzRequest {
  requireSpec(model);
  const random = new FuzzRandom(seed);
  return { cls, seed, ...mutations[cls](random, model) };
}

/** A valid request (JSON or binary) for the model, for the good traffic around a fuzz run. */
export function validOipRequest(seed: number, model: OipModelSpec, binary: boolean): RawHttpRequest {
  requireSpec(model);
  const random = new FuzzRandom(seed);
  const { variant: _variant, ...request } = fromDraft(model, "valid", validDraft(random, model, binary));
  return request;
}
