import { validateProfile, type ProfileCell } from "./profile";

/**
 * A content hash of a profile, independent of cell order: the cache key of the optimizer. Two 53-bit lanes of a
 * multiply-xorshift string hash (cyrb53 with two seeds), hex. Not cryptographic: it only has to tell profiles apart.
 */
export function profileHash(cells: readonly ProfileCell[]): string {
  return hashString(canonicalProfileText(cells));
}

/** One line per cell, sorted by (threads, batch); latencies as JavaScript's shortest round-trip decimal. */
export function canonicalProfileText(cells: readonly ProfileCell[]): string {
  return validateProfile(cells)
    .map((cell) => `${cell.threads},${cell.batch},${String(cell.latencyMs)}`)
    .join("\n");
}

export function hashString(text: string): string {
  return lane(text, 0x9e3779b9) + lane(text, 0x85ebca6b);
}

function lane(text: string, seed: number): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // 53 bits: the high 21 of h2 and all 32 of h1, fixed width so lanes concatenate unambiguously.
  const value = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return value.toString(16).padStart(14, "0");
}
