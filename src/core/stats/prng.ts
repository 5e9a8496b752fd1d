import { StatsInputError } from "./errors";

/**
 * Seeded pseudo-random numbers for simulations and property tests in src/core: xoshiro128** (Blackman & Vigna),
 * its 128-bit state filled from the seed by SplitMix32 steps. Deterministic for a seed on every platform (integer
 * ops via Math.imul; Math.log/cos are V8's fdlibm). Not for cryptography.
 */
const INV_2_32 = 1 / 4294967296;
const TWO_PI = 2 * Math.PI;

/** One SplitMix32 step (the 32-bit variant of Steele, Lea & Flood's mixer): returns [output, next state]. */
export function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [(z ^ (z >>> 16)) >>> 0, next];
}

export class Prng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spareNormal: number | undefined;

  /** A generator for an integer seed in [0, 2^32). */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new StatsInputError("out_of_range", "seed", `must be an integer in [0, 2^32), got ${seed}`);
    }
    let state = seed >>> 0;
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [out, next] = splitmix32(state);
      words.push(out);
      state = next;
    }
    [this.s0, this.s1, this.s2, this.s3] = words as [number, number, number, number];
    // The all-zero state is xoshiro's fixed point.
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** A generator with an explicit xoshiro state (for known-answer tests). */
  static fromState(state: readonly [number, number, number, number]): Prng {
    if ((state[0] | state[1] | state[2] | state[3]) === 0)
      throw new StatsInputError("out_of_range", "state", "must not be all zero");
    const g = new Prng(0);
    [g.s0, g.s1, g.s2, g.s3] = state.map((x) => x >>> 0) as [number, number, number, number];
    return g;
  }

  /** The next 32-bit output, unsigned. */
  nextUint32(): number {
    const s1 = this.s1;
    const m = Math.imul(s1, 5);
    const result = Math.imul((m << 7) | (m >>> 25), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = (this.s3 << 11) | (this.s3 >>> 21);
    return result;
  }

  /** Uniform in the open interval (0, 1), so log(u) and 1/u are always finite. */
  uniform(): number {
    return (this.nextUint32() + 0.5) * INV_2_32;
  }

  /** An integer uniform in [0, n) for n ≤ 2^32 (multiply-shift; bias ≤ n / 2^32). */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > 4294967296)
      throw new StatsInputError("out_of_range", "n", `must be an integer in [1, 2^32], got ${n}`);
    return Math.floor(this.nextUint32() * INV_2_32 * n);
  }

  /** Normal(mean, sd²) by Box–Muller; each pair of uniforms yields two values. */
  normal(mean = 0, sd = 1): number {
    if (this.spareNormal !== undefined) {
      const z = this.spareNormal;
      this.spareNormal = undefined;
      return mean + sd * z;
    }
    const r = Math.sqrt(-2 * Math.log(this.uniform()));
    const theta = TWO_PI * this.uniform();
    this.spareNormal = r * Math.sin(theta);
    return mean + sd * r * Math.cos(theta);
  }

  /** Exponential with the given rate (mean 1/rate) by inversion. */
  exponential(rate: number): number {
    if (!(rate > 0) || !Number.isFinite(rate))
      throw new StatsInputError("out_of_range", "rate", `must be a finite number > 0, got ${rate}`);
    return -Math.log(this.uniform()) / rate;
  }
}
