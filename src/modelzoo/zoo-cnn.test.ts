import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countParameters } from "@/core/model-analysis/parameters";
import { analyzeOnnxFile } from "@/lib/onnx/analyze-model";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { removeOrtDebugLog } from "@/lib/onnx/ort-debug-log";
import { normalTensor } from "./weight-stream";
import { zooEntry } from "./registry";

/**
 * The two benchmark CNNs: exact parameter counts, reproducible bytes, ONNX Runtime at batch 1 and 4, and the
 * FLOPs the analysis finds. One model file at a time is kept (ResNet-50 is ~100 MB).
 */
const dir = mkdtempSync(join(tmpdir(), "zoo-cnn-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeOrtDebugLog();
});

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const SLOW = 120_000;

async function runAtBatches(path: string): Promise<Map<number, ort.Tensor>> {
  const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const out = new Map<number, ort.Tensor>();
  try {
    for (const batch of [1, 4]) {
      const x = normalTensor(3, `image-batch-${batch}`, batch * 3 * 224 * 224, 1);
      const r = await session.run({ input: new ort.Tensor("float32", x, [batch, 3, 224, 224]) });
      if (r.logits) out.set(batch, r.logits);
    }
  } finally {
    await session.release();
  }
  return out;
}

function meanAbs(values: Float32Array): number {
  let s = 0;
  for (const v of values) s += Math.abs(v);
  return s / values.length;
}

describe("ResNet-50", () => {
  const entry = zooEntry("resnet50");
  const path = join(dir, "resnet50.onnx");
  let hash = "";
  let counts: ReturnType<typeof countParameters>;

  beforeAll(() => {
    const bytes = entry.build();
    hash = sha256(bytes);
    counts = countParameters(decodeOnnxModel(bytes));
    writeFileSync(path, bytes);
  }, SLOW);

  it("has torchvision's 25,557,032 parameters, ≈ 102.2 MB in fp32", () => {
    expect(counts.parameters).toBe(25_557_032);
    expect(counts.parameters).toBe(entry.parameters);
    // 25,557,032 × 4 B = 102,228,128 B ≈ 102.2 MB (the chapter rounds to "102.4 MB FP32 (25.6M params)").
    expect(counts.parameters * 4).toBe(102_228_128);
    // BN channels: stem 64; layer1 3·(64+64+256)+256 = 1,408; layer2 4·(128+128+512)+512 = 3,584;
    // layer3 6·(256+256+1,024)+1,024 = 10,240; layer4 3·(512+512+2,048)+2,048 = 11,264 → 26,560 channels,
    // two running statistics each = 53,120 elements, which are weight bytes but not parameters.
    expect(counts.batchNormStatistics).toBe(53_120);
    expect(counts.weightBytes).toBe((25_557_032 + 53_120) * 4);
  });

  it(
    "the same seed gives the same sha256; another seed another",
    () => {
      expect(sha256(entry.build())).toBe(hash);
      expect(sha256(entry.build(entry.defaultSeed + 1))).not.toBe(hash);
    },
    SLOW,
  );

  it(
    "runs in ONNX Runtime at batch 1 and 4: logits [batch, 1000], finite, not collapsed to zero",
    async () => {
      const out = await runAtBatches(path);
      for (const batch of [1, 4]) {
        const logits = out.get(batch);
        expect(logits?.dims).toEqual([batch, 1000]);
        const data = logits?.data as Float32Array;
        expect(data.every(Number.isFinite)).toBe(true);
        // BN's β and mean (N(0, 0.02)) keep activations near the noise scale instead of decaying to denormals.
        expect(meanAbs(data)).toBeGreaterThan(1e-3);
      }
    },
    SLOW,
  );

  it(
    "costs ≈ 8.2 GFLOP per image at 224×224 (the chapter's figure, within 3%)",
    async () => {
      const a = await analyzeOnnxFile(path);
      if (a.flops.status !== "counted") throw new Error(a.flops.message);
      const f = a.flops.perSample;
      expect(Math.abs(f.total / 8.2e9 - 1)).toBeLessThan(0.03);
      // The non-convolution terms, by hand: fc 2·2,048·1,000 = 4,096,000; max pool 3×3 on 64·56·56 outputs
      // = 200,704 × 9 = 1,806,336; global average pool over 2,048·7·7 = 100,352.
      const by = new Map(f.byOperator.map((o) => [o.opType, o]));
      expect(by.get("Gemm")?.flops).toBe(4_096_000);
      expect(by.get("MaxPool")?.flops).toBe(1_806_336);
      expect(by.get("GlobalAveragePool")?.flops).toBe(100_352);
      // Convolutions: the stem, 3 in each of 16 bottlenecks, 4 downsample projections = 1 + 48 + 4 = 53.
      expect(by.get("Conv")?.nodes).toBe(53);
      expect(f.unresolved).toEqual([]);
      expect(a.summary.syntheticWeights).toBe(true);
      expect(a.summary.inputs).toEqual([{ name: "input", dataType: "float32", shape: ["batch", 3, 224, 224] }]);
    },
    SLOW,
  );
});

describe("MobileNetV2 1.0", () => {
  const entry = zooEntry("mobilenet-v2");
  const path = join(dir, "mobilenet-v2.onnx");
  let hash = "";

  beforeAll(() => {
    const bytes = entry.build();
    hash = sha256(bytes);
    writeFileSync(path, bytes);
  }, SLOW);

  it(
    "has torchvision's 3,504,872 parameters",
    () => {
      const bytes = entry.build();
      expect(countParameters(decodeOnnxModel(bytes)).parameters).toBe(3_504_872);
      expect(sha256(bytes)).toBe(hash);
    },
    SLOW,
  );

  it(
    "runs in ONNX Runtime at batch 1 and 4 with logits [batch, 1000]",
    async () => {
      const out = await runAtBatches(path);
      for (const batch of [1, 4]) {
        expect(out.get(batch)?.dims).toEqual([batch, 1000]);
        expect(meanAbs(out.get(batch)?.data as Float32Array)).toBeGreaterThan(1e-3);
      }
    },
    SLOW,
  );

  it(
    "costs ≈ 0.60 GFLOP per image: torchvision lists 0.30 G multiply-adds, × 2 (within 3%)",
    async () => {
      const a = await analyzeOnnxFile(path);
      if (a.flops.status !== "counted") throw new Error(a.flops.message);
      expect(Math.abs(a.flops.perSample.total / 0.6e9 - 1)).toBeLessThan(0.03);
      // ReLU6 is Clip: stem 1 + 17 depthwise + 16 expansions (every block but the first) + head 1 = 35.
      // BN (never fused by the builder): stem 1 + first block 2 + 16 blocks × 3 + head 1 = 52.
      const notCounted = new Map(a.flops.perSample.notCounted.map((o) => [o.opType, o.nodes]));
      expect(notCounted.get("Clip")).toBe(35);
      expect(notCounted.get("BatchNormalization")).toBe(52);
    },
    SLOW,
  );
});
