import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCpuList, parseCpuList } from "./cpulist";
import { TopologyError } from "./errors";

describe("parseCpuList", () => {
  it('reads the kernel\'s format: "0-3,8-11" = 0,1,2,3 and 8,9,10,11', () => {
    expect(parseCpuList("0-3,8-11")).toEqual([0, 1, 2, 3, 8, 9, 10, 11]);
  });
  it("accepts single ids, a trailing newline (as read from sysfs) and overlapping items", () => {
    expect(parseCpuList("5\n")).toEqual([5]);
    expect(parseCpuList("4,0-2,1")).toEqual([0, 1, 2, 4]);
  });
  it("treats an empty file (a memory-only NUMA node) as no CPUs", () => {
    expect(parseCpuList("")).toEqual([]);
    expect(parseCpuList(" \n")).toEqual([]);
  });
  it('reads the stride form "0-9:2/5": in each group of 5 take the first 2 → 0,1,5,6', () => {
    expect(parseCpuList("0-9:2/5")).toEqual([0, 1, 5, 6]);
  });
  it("rejects malformed text with a typed error naming the parameter", () => {
    for (const bad of ["a", "1,,2", "-1", "3-1", "1-2-3", "0-4:3/2", "0-70000"]) {
      const err = (() => {
        try {
          parseCpuList(bad, "allowed");
        } catch (e) {
          return e;
        }
      })();
      expect(err, bad).toBeInstanceOf(TopologyError);
      expect(err).toMatchObject({ code: "invalid-cpulist", parameter: "allowed" });
    }
  });
});

describe("formatCpuList", () => {
  it('writes runs as ranges: [8,9,10,11,0,1,2,3] → "0-3,8-11"', () => {
    expect(formatCpuList([8, 9, 10, 11, 0, 1, 2, 3])).toBe("0-3,8-11");
  });
  it('writes lone ids and pairs the kernel\'s way: [0,2,3,7] → "0,2-3,7"; [] → ""', () => {
    expect(formatCpuList([0, 2, 3, 7])).toBe("0,2-3,7");
    expect(formatCpuList([])).toBe("");
  });
  it("rejects a negative or fractional id", () => {
    expect(() => formatCpuList([1, -2])).toThrow(TopologyError);
    expect(() => formatCpuList([1.5], "cpus")).toThrow(/cpus/);
  });
  it("round-trips any CPU set, and never writes two items that could merge (property, brute-force check)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 80 }), (ids) => {
        const text = formatCpuList(ids);
        expect(parseCpuList(text)).toEqual([...new Set(ids)].sort((a, b) => a - b));
        // Minimality: each item starts at least 2 above where the previous one ended.
        const items = text === "" ? [] : text.split(",").map((p) => p.split("-").map(Number));
        for (let i = 1; i < items.length; i++) expect(items[i]![0]!).toBeGreaterThan(items[i - 1]!.at(-1)! + 1);
      }),
      { numRuns: 200 },
    );
  });
});
