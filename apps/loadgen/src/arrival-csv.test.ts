import { describe, expect, it } from "vitest";
import { parseArrivalCsv } from "./arrival-csv";

describe("parseArrivalCsv", () => {
  it("reads a bare column of seconds, rebased to the first: 100.0, 100.5, 101.25 s → 0, 500, 1250 ms", () => {
    expect(parseArrivalCsv("100.0\n100.5\n\n101.25\n")).toEqual([0, 500, 1250]);
  });

  it("finds the time column a header names, and its unit", () => {
    expect(parseArrivalCsv("# trace\nid,time_ms,model\na,10,x\nb,15,x\nc,40,x\n")).toEqual([0, 5, 30]);
    expect(parseArrivalCsv('"model","timestamp"\nx,1700000000.0\nx,1700000000.002\n')[1]).toBeCloseTo(2, 3); // doubles near 1.7e9 s resolve ≈ 0.2 µs
  });

  it("rejects a header without a time column, a bad value and a trace that goes back, naming the line", () => {
    expect(() => parseArrivalCsv("id,model\n1,x\n")).toThrow(/line 1: the header names no time column/);
    expect(() => parseArrivalCsv("1\n2\nabc,\n")).toThrow(/line 3: "abc" is not a time/);
    expect(() => parseArrivalCsv("1\n3\n2\n")).toThrow(
      expect.objectContaining({ code: "invalid_csv", message: expect.stringMatching(/line 3: 2 goes back in time/) }),
    );
    expect(() => parseArrivalCsv("# nothing\n")).toThrow(/no arrivals/);
  });
});
