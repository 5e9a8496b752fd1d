// Hostile ONNX files for the model registry's upload path, each wrong in one way an attacker or a broken exporter
// would be: cut short, random bytes, a few hundred bytes declaring terabytes of weights, operators no runtime has,
// external-data paths that point outside the store, and subgraphs nested thousands deep. Seeded: the same files in
// every run. Built with onnx-proto (protobufjs), as the registry decodes them.
import { FuzzRandom } from "./fuzz-random";
import { DataType, onnx } from "@/lib/onnx/proto";
import type { OnnxTypes } from "@/lib/onnx/proto";

export const HOSTILE_ONNX_KINDS = [
  "truncated",
  "random-bytes",
  "enormous-initializer",
  "unsupported-operator",
  "external-data-outside-store",
  "deeply-nested-subgraphs",
] as const;
export type HostileOnnxKind = (typeof HOSTILE_ONNX_KINDS)[number];

export interface HostileOnnxFile {
  kind: HostileOnnxKind;
  /** What this one does, e.g. "initializer [65536, 65536, 65536] float, 0 bytes of data". */
  variant: string;
  bytes: Uint8Array;
}

const valueInfo = (name: string, dims: Array<number | string>) => ({
  name,
  type: {
    tensorType: {
      elemType: DataType.FLOAT,
      shape: { dim: dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
    },
  },
});

type Graph = OnnxTypes.IGraphProto;
const model = (graph: Graph, opsets: OnnxTypes.IOperatorSetIdProto[] = [{ domain: "", version: 17 }]) =>
  onnx.ModelProto.encode({ irVersion: 8, producerName: "packrat-fuzz", opsetImport: opsets, graph }).finish();

/** y = x + w, x and y [batch, 4], w [4] float32 in the file: the valid model the hostile ones are cut from. */
export function smallValidModel(): Uint8Array {
  const w = new Float32Array([0.5, -1, 2, 0.25]);
  return model({
    name: "add",
    input: [valueInfo("x", ["batch", 4])],
    output: [valueInfo("y", ["batch", 4])],
    initializer: [{ name: "w", dims: [4], dataType: DataType.FLOAT, rawData: new Uint8Array(w.buffer) }],
    node: [{ opType: "Add", input: ["x", "w"], output: ["y"] }],
  });
}

function truncated(random: FuzzRandom, base: Uint8Array): HostileOnnxFile {
  const cut = random.intBetween(1, base.length - 1);
  return { kind: "truncated", variant: `the first ${cut} of ${base.length} bytes`, bytes: base.slice(0, cut) };
}

function randomBytes(random: FuzzRandom): HostileOnnxFile {
  const n = random.pick([1, 16, 1024, 65_536]);
  // Half start like a ModelProto (ir_version varint, then a graph tag): past the first check, into the decoder.
  const lookalike = random.chance(0.5);
  const body = random.bytes(n);
  const bytes = lookalike ? new Uint8Array([0x08, 0x08, 0x3a, ...body]) : new Uint8Array(body);
  return {
    kind: "random-bytes",
    variant: `${bytes.length} random bytes${lookalike ? " after a ModelProto-like start" : ""}`,
    bytes,
  };
}

function enormousInitializer(random: FuzzRandom): HostileOnnxFile {
  const [dims, dataType, data] = random.pick<[number[], number, "none" | "four-bytes" | "float-data"]>([
    [[65536, 65536, 65536], DataType.FLOAT, "none"],
    [[2 ** 31, 2 ** 31], DataType.FLOAT, "four-bytes"],
    [[2 ** 40, 4], DataType.DOUBLE, "none"],
    [[1_000_000_000], DataType.FLOAT, "float-data"],
    [Array.from({ length: 24 }, () => 2 ** 31), DataType.FLOAT, "none"], // 2^744 elements: past every integer type
  ]);
  const used = random.chance(0.5);
  const tensor: OnnxTypes.ITensorProto = {
    name: "w",
    dims,
    dataType,
    ...(data === "four-bytes" ? { rawData: new Uint8Array(4) } : data === "float-data" ? { floatData: [1, 2, 3] } : {}),
  };
  const graph: Graph = used
    ? {
        name: "huge",
        input: [
          valueInfo(
            "x",
            dims.map(() => "d"),
          ),
        ],
        output: [
          valueInfo(
            "y",
            dims.map(() => "d"),
          ),
        ],
        initializer: [tensor],
        node: [{ opType: "Add", input: ["x", "w"], output: ["y"] }],
      }
    : {
        name: "huge",
        input: [valueInfo("x", ["batch", 4])],
        output: [valueInfo("y", ["batch", 4])],
        initializer: [tensor],
        node: [{ opType: "Relu", input: ["x"], output: ["y"] }],
      };
  return {
    kind: "enormous-initializer",
    variant: `${used ? "used" : "unused"} initializer [${dims.length > 4 ? `${dims.length} × 2^31` : dims.join(", ")}] ${DataType[dataType]}, ${data === "none" ? "no data" : data}`,
    bytes: model(graph),
  };
}

function unsupportedOperator(random: FuzzRandom): HostileOnnxFile {
  const opType = random.pick([
    "Frobnicate",
    "Conv2DTransposeX",
    "",
    "Add\u0000",
    random.unicode(random.intBetween(1, 32)),
    "A".repeat(random.intBetween(100, 5000)),
  ]);
  const [domain, opsets] = random.pick<[string, OnnxTypes.IOperatorSetIdProto[]]>([
    ["", [{ domain: "", version: 17 }]],
    [
      "com.example",
      [
        { domain: "", version: 17 },
        { domain: "com.example", version: 1 },
      ],
    ],
    ["", [{ domain: "", version: 999 }]], // an opset from the future
  ]);
  // Sometimes a real operator in an opset from the future instead of a made-up one.
  const real = random.chance(0.3);
  const op = real ? "Relu" : opType;
  const used = real ? [{ domain: "", version: 999 }] : opsets;
  const graph: Graph = {
    name: "op",
    input: [valueInfo("x", ["batch", 4])],
    output: [valueInfo("y", ["batch", 4])],
    node: [{ opType: op, domain: real ? "" : domain, input: ["x"], output: ["y"] }],
  };
  return {
    kind: "unsupported-operator",
    variant: `op ${JSON.stringify(op).slice(0, 40)} in domain "${real ? "" : domain}", opsets ${used.map((o) => `${o.domain || "ai.onnx"}:${o.version}`).join(", ")}`,
    bytes: model(graph, used),
  };
}

const OUTSIDE_PATHS = [
  "../../../../../../etc/passwd",
  "/etc/passwd",
  "..\\..\\..\\windows\\win.ini",
  "../staging/../../secret.bin",
  "/proc/self/environ",
  "weights/../../../../etc/hostname",
  "file:///etc/passwd",
];

function externalTensor(name: string, location: string): OnnxTypes.ITensorProto {
  return {
    name,
    dims: [4],
    dataType: DataType.FLOAT,
    dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
    externalData: [
      { key: "location", value: location },
      { key: "offset", value: "0" },
      { key: "length", value: "16" },
    ],
  };
}

function externalDataOutsideStore(random: FuzzRandom): HostileOnnxFile {
  const location = random.pick(OUTSIDE_PATHS);
  const x = valueInfo("x", ["batch", 4]);
  const y = valueInfo("y", ["batch", 4]);
  const where = random.pick([
    "graph initializer",
    "Constant node's value",
    "subgraph initializer",
    "sparse initializer",
    "Constant node's sparse value",
  ] as const);
  let graph: Graph;
  switch (where) {
    case "graph initializer":
      graph = {
        name: "ext",
        input: [x],
        output: [y],
        initializer: [externalTensor("w", location)],
        node: [{ opType: "Add", input: ["x", "w"], output: ["y"] }],
      };
      break;
    case "Constant node's value":
      graph = {
        name: "ext",
        input: [x],
        output: [y],
        node: [
          {
            opType: "Constant",
            output: ["w"],
            attribute: [
              { name: "value", type: onnx.AttributeProto.AttributeType.TENSOR, t: externalTensor("w", location) },
            ],
          },
          { opType: "Add", input: ["x", "w"], output: ["y"] },
        ],
      };
      break;
    case "subgraph initializer": {
      const branch = (n: string): Graph => ({
        name: n,
        output: [valueInfo(`${n}_out`, [4])],
        initializer: [externalTensor(`${n}_w`, location)],
        node: [{ opType: "Identity", input: [`${n}_w`], output: [`${n}_out`] }],
      });
      graph = {
        name: "ext",
        input: [x, { name: "cond", type: { tensorType: { elemType: DataType.BOOL, shape: { dim: [] } } } }],
        output: [y],
        node: [
          {
            opType: "If",
            input: ["cond"],
            output: ["w"],
            attribute: [
              { name: "then_branch", type: onnx.AttributeProto.AttributeType.GRAPH, g: branch("then") },
              { name: "else_branch", type: onnx.AttributeProto.AttributeType.GRAPH, g: branch("else") },
            ],
          },
          { opType: "Add", input: ["x", "w"], output: ["y"] },
        ],
      };
      break;
    }
    case "sparse initializer":
      graph = {
        name: "ext",
        input: [x],
        output: [y],
        sparseInitializer: [
          {
            values: externalTensor("w", location),
            indices: { name: "w_idx", dims: [4], dataType: DataType.INT64, int64Data: [0, 1, 2, 3] },
            dims: [4],
          },
        ],
        node: [{ opType: "Add", input: ["x", "w"], output: ["y"] }],
      };
      break;
    default:
      graph = {
        name: "ext",
        input: [x],
        output: [y],
        node: [
          {
            opType: "Constant",
            output: ["w"],
            attribute: [
              {
                name: "sparse_value",
                type: onnx.AttributeProto.AttributeType.SPARSE_TENSOR,
                sparseTensor: {
                  values: externalTensor("w", location),
                  indices: { name: "w_idx", dims: [4], dataType: DataType.INT64, int64Data: [0, 1, 2, 3] },
                  dims: [4],
                },
              },
            ],
          },
          { opType: "Add", input: ["x", "w"], output: ["y"] },
        ],
      };
  }
  return {
    kind: "external-data-outside-store",
    variant: `${where} at ${JSON.stringify(location)}`,
    bytes: model(graph),
  };
}

const constant = (name: string, value: number): OnnxTypes.INodeProto => ({
  opType: "Constant",
  output: [name],
  attribute: [
    {
      name: "value",
      type: onnx.AttributeProto.AttributeType.TENSOR,
      t: { dims: [1], dataType: DataType.FLOAT, floatData: [value] },
    },
  ],
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/**
 * An If whose then-branch is an If whose then-branch is … `depth` levels down (each else-branch a constant).
 * Written by hand, outside in: protobufjs encodes nested messages recursively and overflows the stack long before
 * 20,000 levels. Each level's nested field comes last in its message, so every message is its own fields, then a
 * tag and a length, then the next level; lengths are summed inside out first.
 */
export function nestedIfModel(depth: number): Uint8Array {
  const AttributeType = onnx.AttributeProto.AttributeType;
  const enc = {
    graph: (g: Graph) => onnx.GraphProto.encode(g).finish(),
    node: (n: OnnxTypes.INodeProto) => onnx.NodeProto.encode(n).finish(),
    attribute: (a: OnnxTypes.IAttributeProto) => onnx.AttributeProto.encode(a).finish(),
  };
  const leaf = enc.graph({ name: "leaf", output: [valueInfo("l0_out", [1])], node: [constant("l0_out", 1)] });
  // Per level L (1..depth): the graph's own fields, the node's own fields (with the else-branch), the then-attribute's.
  const heads: Array<{ graph: Uint8Array; node: Uint8Array; attribute: Uint8Array }> = [];
  for (let level = 1; level <= depth; level++) {
    const out = `l${level}_out`;
    const otherwise: Graph = {
      name: `e${level}`,
      output: [valueInfo(`e${level}_out`, [1])],
      node: [constant(`e${level}_out`, 0)],
    };
    heads.push({
      graph: enc.graph({
        name: level === depth ? "nested" : `level${level}`,
        output: [valueInfo(out, [1])],
        ...(level === depth
          ? { input: [{ name: "cond", type: { tensorType: { elemType: DataType.BOOL, shape: { dim: [] } } } }] }
          : {}),
      }),
      node: enc.node({
        opType: "If",
        input: ["cond"],
        output: [out],
        attribute: [{ name: "else_branch", type: AttributeType.GRAPH, g: otherwise }],
      }),
      attribute: enc.attribute({ name: "then_branch", type: AttributeType.GRAPH }),
    });
  }
  // Lengths inside out: G0 = leaf; A_L = a + tag + len(G) + G; N_L = n + tag + len(A) + A; G_L = g + tag + len(N) + N.
  const lengths: Array<{ attribute: number; node: number; graph: number }> = [];
  let inner = leaf.length;
  for (const head of heads) {
    const attribute = head.attribute.length + 1 + varint(inner).length + inner;
    const node = head.node.length + 1 + varint(attribute).length + attribute;
    const graph = head.graph.length + 1 + varint(node).length + node;
    lengths.push({ attribute, node, graph });
    inner = graph;
  }
  const modelHead = onnx.ModelProto.encode({
    irVersion: 8,
    producerName: "packrat-fuzz",
    opsetImport: [{ domain: "", version: 17 }],
  }).finish();
  const chunks: Uint8Array[] = [modelHead, Uint8Array.from([0x3a, ...varint(inner)])]; // ModelProto.graph = field 7
  for (let level = depth; level >= 1; level--) {
    const head = heads[level - 1]!;
    const size = lengths[level - 1]!;
    const below = level > 1 ? lengths[level - 2]!.graph : leaf.length;
    chunks.push(
      head.graph,
      Uint8Array.from([0x0a, ...varint(size.node)]), // GraphProto.node = field 1
      head.node,
      Uint8Array.from([0x2a, ...varint(size.attribute)]), // NodeProto.attribute = field 5
      head.attribute,
      Uint8Array.from([0x32, ...varint(below)]),
    ); // AttributeProto.g = field 6
  }
  chunks.push(leaf);
  return Uint8Array.from(Buffer.concat(chunks));
}

function deeplyNestedSubgraphs(random: FuzzRandom): HostileOnnxFile {
  const depth = random.pick([200, 2_000, 20_000, 200_000]);
  return { kind: "deeply-nested-subgraphs", variant: `If nested ${depth} deep`, bytes: nestedIfModel(depth) };
}

/** The file of `kind` for `seed`: the same bytes for the same (kind, seed). */
export function hostileOnnxFile(kind: HostileOnnxKind, seed: number): HostileOnnxFile {
  const random = new FuzzRandom(seed);
  switch (kind) {
    case "truncated":
      return truncated(random, smallValidModel());
    case "random-bytes":
      return randomBytes(random);
    case "enormous-initializer":
      return enormousInitializer(random);
    case "unsupported-operator":
      return unsupportedOperator(random);
    case "external-data-outside-store":
      return externalDataOutsideStore(random);
    case "deeply-nested-subgraphs":
      return deeplyNestedSubgraphs(random);
  }
}
