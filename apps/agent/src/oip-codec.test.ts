import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeInferResponse, jsonDataText, OipError, parseInferRequest, type ParsedInferRequest } from "./oip-codec";
import type { ModelMetadata } from "./served-model";
import { DATATYPES, typedView, type OipDatatype, type WireTensor } from "./tensor-types";

const metadata: ModelMetadata = {
  name: "m",
  version: "1",
  inputs: [{ name: "x", datatype: "FP32", shape: [-1, 2, 2], symbolicDims: ["batch", undefined, undefined] }],
  outputs: [{ name: "y", datatype: "FP32", shape: [-1, 1], symbolicDims: ["batch", undefined] }],
};
const parse = (data: unknown, datatype = "FP32") =>
  parseInferRequest(
    Buffer.from(JSON.stringify({ inputs: [{ name: "x", shape: [1, 2, 2], datatype, data }] })),
    undefined,
    metadata,
  );

describe("parseInferRequest: JSON data nesting", () => {
  it("takes data flat or nested per the shape (rank 3: up to 3 levels of arrays)", () => {
    const expected = [1, 2, 3, 4];
    for (const data of [
      [1, 2, 3, 4],
      [
        [1, 2],
        [3, 4],
      ],
      [
        [
          [1, 2],
          [3, 4],
        ],
      ],
    ]) {
      expect(Array.from(new Float32Array(parse(data).inputs[0]!.buffer))).toEqual(expected);
    }
  });

  it("refuses data nested deeper than the shape's rank with a 400 naming the input", () => {
    for (const data of [
      [
        [
          [
            [1, 2],
            [3, 4],
          ],
        ],
      ],
      [1, 2, 3, [[[4]]]],
    ]) {
      expect(() => parse(data)).toThrow(OipError);
      expect(() => parse(data)).toThrow(/input x: data is nested deeper than its shape's dimensions/);
    }
  });

  it("refuses 200 000 levels of nesting with a 400, not a stack overflow (fuzz seed deep-nesting 87)", () => {
    const body = `{"inputs":[{"name":"x","shape":[1,2,2],"datatype":"FP32","data":[1,2,3,${"[".repeat(200_000)}4${"]".repeat(200_000)}]}]}`;
    let caught: unknown;
    try {
      parseInferRequest(Buffer.from(body), undefined, metadata);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OipError);
    expect((caught as OipError).status).toBe(400);
  });

  it("does not take prototype keys for datatypes (constructor, toString)", () => {
    for (const datatype of ["constructor", "toString", "__proto__"])
      expect(() => parse([1, 2, 3, 4], datatype)).toThrow(/unsupported datatype/);
  });
});

// The decoder as it was before flat data got its one-pass fill: the fast path must accept exactly what this
// accepts, with the same bytes, and leave every refusal (and its message) to the general path.
function referenceDecode(name: string, datatype: OipDatatype, shape: number[], data: unknown): ArrayBuffer {
  if (datatype === "FP16") throw new OipError(400, `input ${name}: FP16 data must be sent in binary`);
  const count = shape.reduce((a, b) => a * b, 1);
  const leaves: unknown[] = [];
  const walk = (value: unknown, levels: number): void => {
    if (!Array.isArray(value)) return void leaves.push(value);
    for (const v of value as unknown[]) {
      if (!Array.isArray(v)) leaves.push(v);
      else if (levels > 1) walk(v, levels - 1);
      else throw new OipError(400, `input ${name}: data is nested deeper than its shape's dimensions`);
    }
  };
  walk(data, Math.max(1, shape.length));
  if (leaves.length !== count)
    throw new OipError(400, `input ${name}: shape needs ${count} values, data has ${leaves.length}`);
  const info = DATATYPES[datatype];
  const buffer = new ArrayBuffer(count * info.bytes);
  const view = new info.array(buffer);
  const isFloat = datatype.startsWith("FP");
  leaves.forEach((v, i) => {
    if (datatype === "BOOL") {
      if (typeof v !== "boolean") throw new OipError(400, `input ${name}: value ${i} must be true or false`);
      view[i] = v ? 1 : 0;
    } else if (info.bigint) {
      if (typeof v !== "number" || !Number.isInteger(v))
        throw new OipError(400, `input ${name}: value ${i} must be an integer`);
      (view as BigInt64Array)[i] = BigInt(v);
    } else {
      if (typeof v !== "number" || (!Number.isFinite(v) && !isFloat))
        throw new OipError(400, `input ${name}: value ${i} must be a number`);
      if (!isFloat && !Number.isInteger(v))
        throw new OipError(400, `input ${name}: value ${i} must be an integer for ${datatype}`);
      (view as Float32Array)[i] = v;
    }
  });
  return buffer;
}

const outcome = (decode: () => ArrayBuffer) => {
  try {
    return { bytes: Buffer.from(decode()).toString("hex") };
  } catch (error) {
    return { status: (error as OipError).status, error: (error as Error).message };
  }
};

const DECODED_TYPES: OipDatatype[] = ["FP32", "FP64", "BOOL", "INT8", "INT32", "INT64", "UINT8", "UINT64", "FP16"];

// Leaves of every kind a request can carry: each datatype's own values, and everything that is wrong for it.
const leaf = fc.oneof(
  fc.float(),
  fc.double(),
  fc.integer(),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
  fc.constantFrom(-0, 1e-45, 3.4028234663852886e38, 1e300, -1e300, 2 ** 53, 0.1, true, false, null, "1", {}),
  fc.boolean(),
);
const leafFor = (datatype: OipDatatype): fc.Arbitrary<number | boolean> =>
  datatype === "BOOL"
    ? fc.boolean()
    : datatype.startsWith("FP")
      ? fc.oneof(fc.float({ noNaN: true }), fc.double({ noNaN: true }))
      : datatype === "INT8" || datatype === "UINT8"
        ? fc.integer({ min: -300, max: 300 })
        : fc.integer({ min: -(2 ** 40), max: 2 ** 40 });

describe("parseInferRequest: flat JSON data decodes as the general decoder does", () => {
  const model = (datatype: OipDatatype): ModelMetadata => ({
    name: "m",
    version: "1",
    inputs: [{ name: "x", datatype, shape: [-1, -1], symbolicDims: ["batch", undefined] }],
    outputs: [{ name: "y", datatype: "FP32", shape: [-1, 1], symbolicDims: ["batch", undefined] }],
  });
  const decode = (datatype: OipDatatype, shape: number[], data: unknown) => () =>
    parseInferRequest(
      Buffer.from(JSON.stringify({ inputs: [{ name: "x", shape, datatype, data }] })),
      undefined,
      model(datatype),
    ).inputs[0]!.buffer;
  // What JSON carries: NaN and ±Infinity become null on the way.
  const viaJson = (data: unknown): unknown => JSON.parse(JSON.stringify(data));

  it("gives the same bytes for valid flat data of every datatype", () => {
    for (const datatype of DECODED_TYPES) {
      fc.assert(
        fc.property(fc.array(leafFor(datatype), { minLength: 1, maxLength: 40 }), (values) => {
          const shape = [1, values.length];
          expect(outcome(decode(datatype, shape, values))).toEqual(
            outcome(() => referenceDecode("x", datatype, shape, viaJson(values))),
          );
        }),
        { numRuns: 150 },
      );
    }
  });

  it("refuses what the general decoder refuses, with its status and message (bad leaves, lengths, nesting)", () => {
    const data = fc.oneof(
      fc.array(leaf, { minLength: 1, maxLength: 12 }),
      fc.array(fc.oneof(leaf, fc.array(leaf, { maxLength: 3 })), { minLength: 1, maxLength: 12 }),
      fc.array(fc.array(leaf, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...DECODED_TYPES), data, fc.integer({ min: 0, max: 13 }), (datatype, values, n) => {
        for (const shape of [
          [1, values.length],
          [1, n],
          [values.length, (values[0] as unknown[] | undefined)?.length ?? 1],
        ]) {
          expect(outcome(decode(datatype, shape, values))).toEqual(
            outcome(() => referenceDecode("x", datatype, shape, viaJson(values))),
          );
        }
      }),
      { numRuns: 600 },
    );
  });

  it("reads a body with UTF-8 text as UTF-8 (an ASCII one is read as latin1, the same text)", () => {
    const body = Buffer.from(
      JSON.stringify({ id: "é☃😀", inputs: [{ name: "x", shape: [1, 1], datatype: "FP32", data: [1] }] }),
    );
    expect(parseInferRequest(body, undefined, model("FP32")).id).toBe("é☃😀");
    const ascii = Buffer.from(
      JSON.stringify({ id: "plain \\u00e9", inputs: [{ name: "x", shape: [1, 1], datatype: "FP32", data: [1] }] }),
    );
    expect(parseInferRequest(ascii, undefined, model("FP32")).id).toBe("plain \\u00e9");
  });

  it("keeps float32 rounding, -0 and the smallest subnormal in FP32", () => {
    const values = [-0, 1e-45, 0.1, 3.4028234663852886e38, 1e39, -1e39];
    // Written by hand: JSON.stringify writes -0 as 0.
    const body = `{"inputs":[{"name":"x","shape":[1,6],"datatype":"FP32","data":[-0,1e-45,0.1,3.4028234663852886e38,1e39,-1e39]}]}`;
    const got = new Float32Array(parseInferRequest(Buffer.from(body), undefined, model("FP32")).inputs[0]!.buffer);
    expect(Array.from(got)).toEqual(Array.from(Float32Array.from(values)));
    expect(Object.is(got[0], -0)).toBe(true);
  });
});

// The response as it was written before: JSON.stringify of the response object, data through Array.from.
function referenceResponse(model: ModelMetadata, request: ParsedInferRequest, outputs: WireTensor[]): string {
  const data = (t: WireTensor) => {
    const view = typedView(t);
    if (t.datatype === "BOOL") return Array.from(view as Uint8Array, (v) => v !== 0);
    if (DATATYPES[t.datatype].bigint) return Array.from(view as BigInt64Array, (v) => Number(v));
    return Array.from(view as Float32Array);
  };
  const chosen = request.outputs ? request.outputs.map((name) => outputs.find((o) => o.name === name)!) : outputs;
  return JSON.stringify({
    model_name: model.name,
    model_version: model.version,
    ...(request.id !== undefined ? { id: request.id } : {}),
    outputs: chosen.map((t) =>
      request.allBinary || request.binaryOutputs.has(t.name)
        ? { name: t.name, datatype: t.datatype, shape: t.shape, parameters: { binary_data_size: t.buffer.byteLength } }
        : { name: t.name, datatype: t.datatype, shape: t.shape, data: data(t) },
    ),
  });
}

describe("encodeInferResponse: the JSON text JSON.stringify of the response object would be", () => {
  const ENCODED_TYPES: OipDatatype[] = ["FP32", "FP64", "BOOL", "INT8", "INT32", "INT64", "UINT32", "UINT64", "FP16"];
  const tensor = fc
    .record({
      name: fc.oneof(fc.constantFrom("logits", "y", 'quote"d', "é\u2028"), fc.string()),
      datatype: fc.constantFrom(...ENCODED_TYPES),
      seed: fc.array(fc.oneof(fc.float(), fc.double(), fc.constantFrom(-0, 1e-45, NaN, Infinity, -Infinity, 3.4e38)), {
        maxLength: 24,
      }),
    })
    .map(({ name, datatype, seed }): WireTensor => {
      const info = DATATYPES[datatype];
      const buffer = new ArrayBuffer(seed.length * info.bytes);
      const view = new info.array(buffer);
      seed.forEach((v, i) => {
        if (info.bigint) (view as BigInt64Array)[i] = BigInt(Math.trunc(Number.isFinite(v) ? v % 2 ** 62 : 7));
        else (view as Float32Array)[i] = datatype === "BOOL" ? (v > 0 ? 1 : 0) : v;
      });
      return { name, datatype, shape: [1, seed.length], buffer };
    });

  it("matches for random tensors of every datatype (NaN and ±Infinity as null, -0 as 0), ids, binary outputs", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(tensor, { minLength: 1, maxLength: 3, selector: (t) => t.name }),
        fc.option(fc.string(), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        fc.string(),
        (outputs, id, allBinary, someBinary, version) => {
          const model: ModelMetadata = { name: 'm"odel', version, inputs: [], outputs: [] };
          const request: ParsedInferRequest = {
            id,
            inputs: [],
            rows: 1,
            binaryOutputs: new Set(someBinary ? [outputs[0]!.name] : []),
            allBinary,
          };
          const { body, headerLength } = encodeInferResponse(model, request, outputs);
          const header = body.subarray(0, headerLength ?? body.length).toString("utf8");
          expect(header).toBe(referenceResponse(model, request, outputs));
          const binary = outputs.filter((t) => allBinary || request.binaryOutputs.has(t.name));
          expect(body.subarray(headerLength ?? body.length)).toEqual(
            Buffer.concat(binary.map((t) => Buffer.from(t.buffer))),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it("writes float32 values as their shortest round-trip decimals, as Array.from + JSON.stringify does", () => {
    const values = Float32Array.from([-0, 1e-45, 0.1, 3.4028234663852886e38, NaN, -Infinity, 1 / 3]);
    const t: WireTensor = { name: "y", datatype: "FP32", shape: [1, values.length], buffer: values.buffer };
    expect(jsonDataText(t)).toBe(JSON.stringify(Array.from(values)));
    expect(jsonDataText(t)).toBe(
      "[0,1.401298464324817e-45,0.10000000149011612,3.4028234663852886e+38,null,null,0.3333333432674408]",
    );
  });
});
