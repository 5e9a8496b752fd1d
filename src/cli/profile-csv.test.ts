import { describe, expect, it } from "vitest";
import { parseProfileCsv, ProfileCsvError, splitCsvLine } from "./profile-csv";

function errorOf(text: string): ProfileCsvError {
  try {
    parseProfileCsv(text);
  } catch (error) {
    if (error instanceof ProfileCsvError) return error;
    throw error;
  }
  throw new Error("expected a ProfileCsvError");
}

describe("parseProfileCsv", () => {
  it("reads threads,batch,latency_ms rows", () => {
    expect(parseProfileCsv("threads,batch,latency_ms\n1,1,10\n1,2,19.5\n")).toEqual([
      { threads: 1, batch: 1, latencyMs: 10 },
      { threads: 1, batch: 2, latencyMs: 19.5 },
    ]);
  });

  it("ignores extra columns and their order (a dashboard export), CRLF, a BOM, blank lines and quotes", () => {
    const text = '\uFEFFmodel,latency_ms,p99_ms,batch,threads\r\n"resnet, v2",6.5,9,2,4\r\n\r\nx,"1e1",12,1,1\r\n';
    expect(parseProfileCsv(text)).toEqual([
      { threads: 4, batch: 2, latencyMs: 6.5 },
      { threads: 1, batch: 1, latencyMs: 10 },
    ]);
  });

  it("a missing column names line 1 and the column", () => {
    const error = errorOf("threads,batch,latency\n1,1,10\n");
    expect(error.code).toBe("missing_column");
    expect(error.line).toBe(1);
    expect(error.message).toMatch(/^line 1: missing column "latency_ms"/);
  });

  it("a non-numeric latency names its line: blank line 3 still counts, so the bad row is line 4", () => {
    const error = errorOf("threads,batch,latency_ms\n1,1,10\n\n1,2,fast\n");
    expect([error.code, error.line]).toEqual(["bad_value", 4]);
    expect(error.message).toBe('line 4: latency_ms "fast" is not a number');
  });

  it.each([
    ["1,1,-3", /latency_ms must be a finite number > 0, got -3/],
    ["1,1,0", /latency_ms must be a finite number > 0/],
    ["1,1,NaN", /latency_ms "NaN" is not a number/],
    ["1,1,Infinity", /latency_ms "Infinity" is not a number/],
    ["0,1,5", /threads must be a positive integer, got 0/],
    ["1.5,1,5", /threads must be a positive integer, got 1.5/],
    ["1,0x10,5", /batch "0x10" is not a number/],
    ["1,,5", /batch "" is not a number/],
  ])("rejects the row %s on line 2", (row, message) => {
    const error = errorOf(`threads,batch,latency_ms\n${row}\n`);
    expect(error.line).toBe(2);
    expect(error.message).toMatch(message);
  });

  it("a duplicate cell names both lines", () => {
    const error = errorOf("threads,batch,latency_ms\n1,2,19\n2,2,11\n1,2,20\n");
    expect([error.code, error.line]).toEqual(["duplicate_cell", 4]);
    expect(error.message).toMatch(/duplicate cell threads=1, batch=2 \(first on line 2\)/);
  });

  it("a short row names its line and the header's width", () => {
    expect(errorOf("threads,batch,latency_ms\n1,2\n").message).toBe("line 2: has 2 fields, the header on line 1 has 3");
  });

  it("an empty file or a header alone is an error, not an empty profile", () => {
    expect(errorOf("").code).toBe("empty");
    expect(errorOf("threads,batch,latency_ms\n").message).toMatch(/line 1: no data rows/);
  });

  it("has the typed-error shape: code, parameter, line", () => {
    expect(errorOf("x\n")).toMatchObject({ name: "ProfileCsvError", parameter: "profile", line: 1 });
  });
});

describe("splitCsvLine", () => {
  it('keeps commas inside quotes and turns "" into a quote', () => {
    expect(splitCsvLine('a,"b,c","say ""hi""",', 1)).toEqual(["a", "b,c", 'say "hi"', ""]);
  });
  it("rejects an unterminated quote, naming the line", () => {
    expect(() => splitCsvLine('1,"2', 7)).toThrow(/line 7: unterminated/);
  });
});
