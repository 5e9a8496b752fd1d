// fixedChunks re-cuts an upload into the store's row size; the PostgreSQL store itself is tested against a real
// database in postgres-artifact-store.int.test.ts and artifact-stores.int.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fixedChunks } from "./postgres-artifact-store";

async function collect(pieces: Uint8Array[], size: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of fixedChunks(
    (async function* () {
      yield* pieces;
    })(),
    size,
  ))
    out.push(chunk);
  return out;
}

describe("fixedChunks", () => {
  it("cuts 10 bytes arriving as 3 + 4 + 3 into chunks of 4: 4, 4, 2", async () => {
    const bytes = Uint8Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const out = await collect([bytes.subarray(0, 3), bytes.subarray(3, 7), bytes.subarray(7)], 4);
    expect(out.map((c) => [...c])).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
  });

  it("an exact multiple ends with a full chunk, and nothing in gives nothing out", async () => {
    expect((await collect([new Uint8Array(8)], 4)).map((c) => c.length)).toEqual([4, 4]);
    expect(await collect([], 4)).toEqual([]);
    expect(await collect([new Uint8Array(0)], 4)).toEqual([]);
  });

  it("property: concatenation is preserved, every chunk but the last is exactly `size`, count = ceil(n / size)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 17 }),
        async (pieces, size) => {
          const total = Buffer.concat(pieces);
          const out = await collect(pieces, size);
          expect(Buffer.concat(out).equals(total)).toBe(true);
          expect(out.length).toBe(Math.ceil(total.length / size));
          out.slice(0, -1).forEach((c) => expect(c.length).toBe(size));
          if (out.length) expect(out.at(-1)!.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
