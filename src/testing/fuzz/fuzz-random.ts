// Seeded choices for the fuzzers on top of the shared xoshiro generator (src/core/stats/prng.ts): a failure found
// with seed s is replayed exactly by running seed s again.
import { Prng } from "@/core/stats/prng";

export class FuzzInputError extends Error {
  override readonly name = "FuzzInputError";
  constructor(
    readonly code: "out_of_range" | "empty",
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

export class FuzzRandom {
  private readonly prng: Prng;

  constructor(readonly seed: number) {
    this.prng = new Prng(seed);
  }

  /** An integer uniform in [low, high] (both included). */
  intBetween(low: number, high: number): number {
    if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || high < low || high - low >= 4294967296) {
      throw new FuzzInputError(
        "out_of_range",
        "high",
        `[${low}, ${high}] must be a non-empty integer range narrower than 2^32`,
      );
    }
    return low + this.prng.int(high - low + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.prng.uniform() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new FuzzInputError("empty", "items", "cannot pick from an empty list");
    return items[this.prng.int(items.length)]!;
  }

  normal(): number {
    return this.prng.normal();
  }

  /** A length with a heavy tail: mostly short, sometimes up to `max` (log-uniform between 1 and max). */
  length(max: number): number {
    if (!Number.isSafeInteger(max) || max < 1)
      throw new FuzzInputError("out_of_range", "max", `must be an integer ≥ 1, got ${max}`);
    return Math.min(max, Math.floor(Math.exp(this.prng.uniform() * Math.log(max + 1))));
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.prng.int(256);
    return out;
  }

  /**
   * A string of `n` UTF-16 code units drawn from the classes that break naive code: ASCII, Latin-1, CJK, astral
   * emoji (surrogate pairs), combining marks, bidi overrides, NUL and other controls, and lone surrogates.
   */
  unicode(n: number): string {
    const parts: string[] = [];
    let units = 0;
    while (units < n) {
      let piece: string;
      switch (this.prng.int(8)) {
        case 0:
          piece = String.fromCharCode(0x20 + this.prng.int(0x5f));
          break;
        case 1:
          piece = String.fromCharCode(0xa0 + this.prng.int(0x60));
          break;
        case 2:
          piece = String.fromCharCode(0x4e00 + this.prng.int(0x5000));
          break;
        case 3:
          piece = String.fromCodePoint(0x1f300 + this.prng.int(0x300));
          break;
        case 4:
          piece = String.fromCharCode(0x300 + this.prng.int(0x70));
          break;
        case 5:
          piece = this.pick(["\u202e", "\u202d", "\u200f", "\u200b", "\ufeff"]);
          break;
        case 6:
          piece = String.fromCharCode(this.prng.int(0x20));
          break;
        default:
          piece = String.fromCharCode(0xd800 + this.prng.int(0x800));
          break; // lone surrogate
      }
      if (units + piece.length > n) piece = String.fromCharCode(0x41 + this.prng.int(26));
      parts.push(piece);
      units += piece.length;
    }
    return parts.join("");
  }
}
