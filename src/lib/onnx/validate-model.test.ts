import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { externalDataModel, oneNodeModel, randomBytes, typeMismatchModel } from "./test-models";
import { DataType, onnx } from "./proto";
import { ModelRejectedError, validateOnnxFile } from "./validate-model";

const dir = mkdtempSync(join(tmpdir(), "validate-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, bytes: Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

const limits = { timeoutMs: 30_000, memoryLimitBytes: 2 * 1024 ** 3 };
const cnn = zooEntry("tiny-cnn").build();

async function rejection(path: string, options = limits): Promise<ModelRejectedError> {
  try {
    await validateOnnxFile(path, options);
  } catch (error) {
    if (error instanceof ModelRejectedError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("validateOnnxFile (in a watched child)", () => {
  it("accepts the tiny CNN: ONNX Runtime creates a session and names its input and output", async () => {
    const v = await validateOnnxFile(file("cnn.onnx", cnn), limits);
    expect(v.inputNames).toEqual(["input"]);
    expect(v.outputNames).toEqual(["logits"]);
    expect(v.loadMs).toBeGreaterThan(0);
  }, 30_000);

  it("says EMPTY, TRUNCATED and NOT_ONNX for an empty file, half a model and random bytes", async () => {
    expect((await rejection(file("empty.onnx", new Uint8Array()))).code).toBe("EMPTY");
    // Cut at half its length the CNN's graph field (field 7) claims more bytes than are left.
    const truncated = await rejection(file("half.onnx", cnn.slice(0, Math.floor(cnn.length / 2))));
    expect(truncated.code).toBe("TRUNCATED");
    expect(truncated.message).toMatch(/cut short/);
    expect((await rejection(file("random.onnx", randomBytes(4096)))).code).toBe("NOT_ONNX");
    expect((await rejection(file("text.onnx", new TextEncoder().encode("hello, I am not a model\n")))).code).toBe(
      "NOT_ONNX",
    );
  }, 30_000);

  it("refuses external data, an operator ONNX Runtime lacks, and a graph its type check refuses", async () => {
    const external = await rejection(file("external.onnx", externalDataModel()));
    expect(external.code).toBe("EXTERNAL_DATA");
    expect(external.message).toMatch(/external data files \(w\)/);
    const custom = await rejection(
      file(
        "custom.onnx",
        oneNodeModel("Frobnicate", "com.example", [
          { domain: "", version: 17 },
          { domain: "com.example", version: 1 },
        ]),
      ),
    );
    expect(custom.code).toBe("UNSUPPORTED_OPERATOR");
    expect(custom.operator).toBe("com.example:Frobnicate");
    const mismatch = await rejection(file("mismatch.onnx", typeMismatchModel()));
    expect(mismatch.code).toBe("ORT_REJECTED");
    expect(mismatch.message).toMatch(/ONNX Runtime refused the model/);
  }, 30_000);

  it("refuses a tensor whose data cannot be what its dims declare, even one no node uses (fuzzer, issue #23)", async () => {
    const io = (name: string) => ({
      name,
      type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [{ dimParam: "batch" }, { dimValue: 4 }] } } },
    });
    const withW = (w: object) =>
      onnx.ModelProto.encode({
        irVersion: 8,
        opsetImport: [{ domain: "", version: 17 }],
        graph: {
          name: "relu",
          input: [io("x")],
          output: [io("y")],
          initializer: [{ name: "w", ...w }],
          node: [{ opType: "Relu", input: ["x"], output: ["y"] }],
        },
      }).finish();
    // ~100 bytes declaring [2^40, 4] doubles (35 TB) with no data: ONNX Runtime drops an unused initializer unread,
    // and the registry then recorded 4.4e12 parameters for the file.
    const huge = await rejection(file("huge.onnx", withW({ dims: [2 ** 40, 4], dataType: DataType.DOUBLE })));
    expect(huge.code).toBe("NOT_ONNX");
    expect(huge.message).toMatch(
      /initializer "w" declares \[1099511627776, 4\] \(4398046511104 values\) but carries 0/,
    );
    // raw_data of 4 bytes for [2, 2] float32 (16 bytes needed); 3 floats for [4].
    expect(
      (
        await rejection(
          file("short-raw.onnx", withW({ dims: [2, 2], dataType: DataType.FLOAT, rawData: new Uint8Array(4) })),
        )
      ).message,
    ).toMatch(/\(16 bytes\) but carries 4 bytes/);
    expect(
      (await rejection(file("short-floats.onnx", withW({ dims: [4], dataType: DataType.FLOAT, floatData: [1, 2, 3] }))))
        .message,
    ).toMatch(/\(4 values\) but carries 3/);
    // The same unused tensor with its data whole loads.
    expect(
      (
        await validateOnnxFile(
          file("whole.onnx", withW({ dims: [4], dataType: DataType.FLOAT, floatData: [1, 2, 3, 4] })),
          limits,
        )
      ).inputNames,
    ).toEqual(["x"]);
  }, 0);

  it("refuses external data in a sparse initializer as EXTERNAL_DATA, not with ONNX Runtime's graph error", async () => {
    const external = {
      dims: [4],
      dataType: DataType.FLOAT,
      dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
      externalData: [{ key: "location", value: "/etc/passwd" }],
    };
    const bytes = onnx.ModelProto.encode({
      irVersion: 8,
      opsetImport: [{ domain: "", version: 17 }],
      graph: {
        name: "sparse",
        input: [],
        output: [{ name: "w", type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [{ dimValue: 4 }] } } } }],
        sparseInitializer: [
          {
            values: { name: "w", ...external },
            indices: { name: "i", dims: [4], dataType: DataType.INT64, int64Data: [0, 1, 2, 3] },
            dims: [4],
          },
        ],
      },
    }).finish();
    const r = await rejection(file("sparse-external.onnx", bytes));
    expect(r.code).toBe("EXTERNAL_DATA");
  }, 0);

  it("the watchdog kills a child past its time limit or its memory limit", async () => {
    const path = file("cnn2.onnx", cnn);
    // 1 ms cannot cover starting Node; 16 MiB is less than Node alone keeps resident.
    const slow = await rejection(path, { timeoutMs: 1, memoryLimitBytes: limits.memoryLimitBytes });
    expect(slow.code).toBe("TIMEOUT");
    expect(slow.message).toMatch(/longer than 1 ms/);
    const big = await rejection(path, { timeoutMs: limits.timeoutMs, memoryLimitBytes: 16 * 1024 ** 2 });
    expect(big.code).toBe("MEMORY_LIMIT");
    expect(big.message).toMatch(/more than 16 MiB/);
  }, 30_000);
});
