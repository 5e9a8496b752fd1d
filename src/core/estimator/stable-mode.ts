/**
 * The smoothed batch size B̃: the most frequent value in the ring. Ties go to the current B when it is among them
 * (so an even split never flips the configuration), else to the tied value seen most recently. Null for an empty ring.
 */
export function stableMode(ring: readonly number[], current: number | null): number | null {
  const counts = new Map<number, number>();
  for (const b of ring) counts.set(b, (counts.get(b) ?? 0) + 1);
  const top = Math.max(0, ...counts.values());
  const modes = [...counts].filter(([, n]) => n === top).map(([b]) => b);
  if (modes.length <= 1) return modes[0] ?? null;
  if (current !== null && modes.includes(current)) return current;
  for (let i = ring.length - 1; i >= 0; i--) if (modes.includes(ring[i]!)) return ring[i]!;
  return null; // unreachable: every mode occurs in the ring
}
