import { Prng } from "@/core/stats/prng";
import { ModelZooError } from "./errors";

/**
 * Where the zoo's weights come from, named so a model's bytes can be reproduced anywhere: every tensor draws
 * from its own stream of the shared generator (src/core/stats/prng: xoshiro128**, normals by Box–Muller), whose
 * 128-bit state is two SplitMix64 outputs over seed·φ64 XOR FNV-1a-64(tensor name). Own streams mean adding a
 * layer never changes the other layers' weights.
 */
export const PRNG_NAME = "xoshiro128** (core/stats/prng) + per-tensor SplitMix64(seed, FNV-1a(name)) + Box-Muller";

const MASK64 = (1n << 64n) - 1n;

/** SplitMix64 (Steele, Lea, Flood): returns [output, next state]. */
export function splitmix64(state: bigint): [bigint, bigint] {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK64;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return [z ^ (z >> 31n), next];
}

/** FNV-1a 64 over the UTF-8 bytes of a stream name. */
export function fnv1a64(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & MASK64;
  }
  return h;
}

/** The xoshiro128** state of stream `stream` under `seed`, as four 32-bit words. */
export function streamState(seed: number, stream: string): [number, number, number, number] {
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new ModelZooError("BAD_SEED", "seed", `must be an integer in [0, 2^32), got ${seed}`);
  }
  const start = ((BigInt(seed) * 0x9e3779b97f4a7c15n) & MASK64) ^ fnv1a64(stream);
  const [a, afterA] = splitmix64(start);
  const [b] = splitmix64(afterA);
  const words: [number, number, number, number] = [
    Number(a & 0xffffffffn),
    Number(a >> 32n),
    Number(b & 0xffffffffn),
    Number(b >> 32n),
  ];
  // xoshiro's all-zero state is a fixed point; SplitMix64 makes it astronomically unlikely, but be exact.
  if ((words[0] | words[1] | words[2] | words[3]) === 0) words[0] = 1;
  return words;
}

export function weightStream(seed: number, stream: string): Prng {
  return Prng.fromState(streamState(seed, stream));
}

/** `count` draws of N(mean, std²) from the stream named `stream`, as float32. */
export function normalTensor(seed: number, stream: string, count: number, std: number, mean = 0): Float32Array {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new ModelZooError("BAD_COUNT", "count", `must be a non-negative integer, got ${count}`);
  }
  if (!Number.isFinite(std) || std < 0)
    throw new ModelZooError("BAD_STD", "std", `must be finite and >= 0, got ${std}`);
  if (!Number.isFinite(mean)) throw new ModelZooError("BAD_MEAN", "mean", `must be finite, got ${mean}`);
  const rng = weightStream(seed, stream);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = rng.normal(mean, std);
  return out;
}
