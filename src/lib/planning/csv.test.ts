import { describe, expect, it } from "vitest";
import { csvFileName, toCsv } from "./csv";

describe("chart data as CSV", () => {
  it("writes a header and rows, full precision, CRLF line ends", () => {
    const csv = toCsv({
      columns: ["batch", "latency_ms"],
      rows: [
        [1, 3.528194736842105],
        [32, 4.547914736842105],
      ],
    });
    expect(csv).toBe("batch,latency_ms\r\n1,3.528194736842105\r\n32,4.547914736842105\r\n");
  });

  it("quotes text with commas, quotes or newlines; empty cells for missing or non-finite values", () => {
    const csv = toCsv({
      columns: ["stage", "note", "ms"],
      rows: [
        ['preprocess, "JPEG"', "a\nb", Number.NaN],
        ["queue", null, Infinity],
      ],
    });
    expect(csv).toBe('stage,note,ms\r\n"preprocess, ""JPEG""","a\nb",\r\nqueue,,\r\n');
  });

  it("refuses a row of the wrong width", () => {
    expect(() => toCsv({ columns: ["a", "b"], rows: [[1]] })).toThrow(/row 0 has 1 cells, expected 2/);
  });

  it("file names from titles", () => {
    expect(csvFileName("Pareto frontier (500 req/s)")).toBe("pareto-frontier-500-req-s.csv");
    expect(csvFileName("***")).toBe("chart-data.csv");
  });
});
