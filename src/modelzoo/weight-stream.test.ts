import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ModelZooError } from "./errors";
import { fnv1a64, normalTensor, splitmix64, streamState, weightStream } from "./weight-stream";

/** xoshiro128** written again with BigInt arithmetic, straight from the reference C, to check the Math.imul version. */
function referenceXoshiro(state: [bigint, bigint, bigint, bigint], n: number): number[] {
  const M = 0xffffffffn;
  const rotl = (x: bigint, k: bigint) => ((x << k) | (x >> (32n - k))) & M;
  const s = [...state];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const [s0, s1, s2, s3] = s as [bigint, bigint, bigint, bigint];
    out.push(Number((rotl((s1 * 5n) & M, 7n) * 9n) & M));
    const t = (s1 << 9n) & M;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    const n1 = s1 ^ n2;
    const n0 = s0 ^ n3;
    s[0] = n0;
    s[1] = n1;
    s[2] = n2 ^ t;
    s[3] = rotl(n3, 11n);
  }
  return out;
}

function referenceState(seed: number, stream: string): [bigint, bigint, bigint, bigint] {
  const M64 = (1n << 64n) - 1n;
  const start = ((BigInt(seed) * 0x9e3779b97f4a7c15n) & M64) ^ fnv1a64(stream);
  const [a, next] = splitmix64(start);
  const [b] = splitmix64(next);
  return [a & 0xffffffffn, a >> 32n, b & 0xffffffffn, b >> 32n];
}

describe("SplitMix64 and FNV-1a (published vectors)", () => {
  it("SplitMix64 from state 0 first outputs 0xE220A8397B1DCDAF", () => {
    expect(splitmix64(0n)[0]).toBe(0xe220a8397b1dcdafn);
  });
  it("FNV-1a 64 of '' is the offset basis 0xcbf29ce484222325; of 'a' it is 0xaf63dc4c8601ec8c", () => {
    expect(fnv1a64("")).toBe(0xcbf29ce484222325n);
    expect(fnv1a64("a")).toBe(0xaf63dc4c8601ec8cn);
  });
});

describe("per-tensor weight streams on the shared xoshiro128**", () => {
  it("matches a BigInt reference implementation for any seed and stream (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.string({ maxLength: 12 }), (seed, stream) => {
        expect(streamState(seed, stream).map(BigInt)).toEqual(referenceState(seed, stream));
        const rng = weightStream(seed, stream);
        const ours = Array.from({ length: 20 }, () => rng.nextUint32());
        expect(ours).toEqual(referenceXoshiro(referenceState(seed, stream), 20));
      }),
      { numRuns: 50 },
    );
  });

  it("is reproducible per (seed, stream) and differs across streams and seeds", () => {
    const a = normalTensor(7, "layer1.weight", 64, 1);
    expect(normalTensor(7, "layer1.weight", 64, 1)).toEqual(a);
    expect(normalTensor(7, "layer2.weight", 64, 1)).not.toEqual(a);
    expect(normalTensor(8, "layer1.weight", 64, 1)).not.toEqual(a);
  });

  it("uniforms stay inside (0, 1) and normals have mean 0 and std σ (N = 200,000)", () => {
    const rng = weightStream(1, "u");
    for (let i = 0; i < 10_000; i++) {
      const u = rng.uniform();
      expect(u > 0 && u < 1).toBe(true);
    }
    const n = 200_000;
    const xs = normalTensor(42, "check", n, 0.02);
    let sum = 0;
    let sq = 0;
    for (const x of xs) {
      sum += x;
      sq += x * x;
    }
    const mean = sum / n;
    const std = Math.sqrt(sq / n - mean * mean);
    // Standard error of the mean = 0.02/√200,000 ≈ 4.5e-5: allow 5 of them. The sample std's error ≈ σ/√(2N) ≈ 0.16%.
    expect(Math.abs(mean)).toBeLessThan(5 * 4.5e-5);
    expect(Math.abs(std / 0.02 - 1)).toBeLessThan(0.01);
    // A normal puts 68.27% within one σ.
    const within = xs.filter((x) => Math.abs(x) < 0.02).length / n;
    expect(within).toBeCloseTo(0.6827, 2);
  });

  it("rejects seeds outside [0, 2^32) and bad sizes, naming the parameter", () => {
    expect(() => weightStream(-1, "x")).toThrow(ModelZooError);
    expect(() => weightStream(2 ** 32, "x")).toThrow(/seed/);
    expect(() => normalTensor(1.5, "x", 3, 1)).toThrow(/seed/);
    expect(() => normalTensor(1, "x", -1, 1)).toThrow(/count/);
    expect(() => normalTensor(1, "x", 3, Number.NaN)).toThrow(/std/);
  });
});
