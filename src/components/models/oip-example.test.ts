import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { batchOneInputs, oipCurlExample, oipDatatype } from "./oip-example";

/** Runs the example's node line the way a shell would, and returns the request it writes. */
function requestOf(example: string): {
  inputs: Array<{ name: string; shape: number[]; datatype: string; data: unknown[] }>;
} {
  const line = example.split("\n")[1]!;
  const quoted = /^node -e '(.*)' > request\.json$/.exec(line)![1]!;
  const script = quoted.replace(/'\\''/g, "'");
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

describe("OIP curl example", () => {
  it("the tiny CNN: one FP32 input of 1×3×32×32 = 3,072 zeros, posted to /v2/models/tiny-cnn/infer", () => {
    const inputs = batchOneInputs([{ name: "input", dataType: "float32", shape: ["batch", 3, 32, 32] }], {});
    expect(inputs).toEqual([{ name: "input", dataType: "float32", shape: [1, 3, 32, 32] }]);
    const example = oipCurlExample("tiny-cnn", inputs, "http://localhost:8000");
    expect(example.split("\n")[0]).toBe("AGENT='http://localhost:8000'");
    expect(example).toContain(`"$AGENT/v2/models/tiny-cnn/infer"`);
    const request = requestOf(example);
    expect(request.inputs).toHaveLength(1);
    expect(request.inputs[0]).toMatchObject({ name: "input", shape: [1, 3, 32, 32], datatype: "FP32" });
    expect(request.inputs[0]!.data).toHaveLength(3 * 32 * 32);
  });

  it("BERT-style inputs: INT64 token ids at the serving sequence length (128)", () => {
    const inputs = batchOneInputs(
      [
        { name: "input_ids", dataType: "int64", shape: ["batch", "sequence"] },
        { name: "attention_mask", dataType: "int64", shape: ["batch", "sequence"] },
      ],
      { sequence: 128 },
    );
    const request = requestOf(oipCurlExample("bert-base", inputs, "http://agent:8000"));
    expect(request.inputs.map((i) => [i.name, i.datatype, i.shape, i.data.length])).toEqual([
      ["input_ids", "INT64", [1, 128], 128],
      ["attention_mask", "INT64", [1, 128], 128],
    ]);
  });

  it("survives quotes in an input name (shell and JavaScript quoting)", () => {
    const example = oipCurlExample("m", [{ name: `it's "x"`, dataType: "bool", shape: [1, 2] }], "http://a:8000");
    expect(requestOf(example).inputs[0]).toMatchObject({ name: `it's "x"`, datatype: "BOOL", data: [false, false] });
  });

  it("an agent address is one quoted shell word: command substitution, quotes and separators stay text", () => {
    const marker = join(mkdtempSync(join(tmpdir(), "oip-quote-")), "ran");
    const hostile = `http://a:8000/$(touch ${marker})\`touch ${marker}\`;touch ${marker}' && touch ${marker} #`;
    const line = oipCurlExample("m", [{ name: "x", dataType: "float32", shape: [1] }], hostile).split("\n")[0]!;
    // The shell assigns the address, verbatim, and runs nothing.
    const printed = execFileSync("sh", ["-c", `${line}\nprintf %s "$AGENT"`], { encoding: "utf8" });
    expect(printed).toBe(hostile);
    expect(existsSync(marker)).toBe(false);
  });

  it("maps ONNX element types to OIP datatypes", () => {
    expect(["float32", "float16", "int64", "uint8", "bool", "string"].map(oipDatatype)).toEqual([
      "FP32",
      "FP16",
      "INT64",
      "UINT8",
      "BOOL",
      "BYTES",
    ]);
  });
});

describe("OIP curl example at the serving dimensions", () => {
  it("two dynamic image dimensions take their serving values, not 1", () => {
    const inputs = batchOneInputs(
      [{ name: "x", dataType: "float32", shape: ["N", 3, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"] }],
      { "p2o.DynamicDimension.1": 64, "p2o.DynamicDimension.2": 48 },
    );
    expect(inputs[0]!.shape).toEqual([1, 3, 64, 48]);
    // 1 × 3 × 64 × 48 = 9,216 zeros.
    expect(requestOf(oipCurlExample("img", inputs, "http://a:8000")).inputs[0]!.data).toHaveLength(9_216);
  });

  it("state with the batch on axis 1 gets batch 1 there; a scalar stays a scalar", () => {
    const inputs = batchOneInputs(
      [
        { name: "x", dataType: "float32", shape: ["batch", 8] },
        { name: "h0", dataType: "float32", shape: [2, "batch", 16] },
        { name: "gain", dataType: "float32", shape: [] },
      ],
      {},
    );
    expect(inputs.map((i) => i.shape)).toEqual([[1, 8], [2, 1, 16], []]);
  });

  it("a dimension with no serving value is named, not sent as 1", () => {
    expect(() => batchOneInputs([{ name: "x", dataType: "float32", shape: ["N", 3, "height", 32] }], {})).toThrow(
      /x" dimension 2 "height"/,
    );
  });
});
