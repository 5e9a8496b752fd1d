import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { parseToUnicode, pdfText } from "./pdf-text";

/** A one-page PDF the way Skia writes one: a Type0 font with a ToUnicode CMap, glyph ids in a Flate content stream. */
function tinyPdf(content: string, cmap: string): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const obj = (n: number, dict: string, stream?: Buffer) => {
    parts.push(Buffer.from(`${n} 0 obj\n${dict}${stream ? `\nstream\n` : "\n"}`, "latin1"));
    if (stream) parts.push(stream, Buffer.from("\nendstream", "latin1"));
    parts.push(Buffer.from("\nendobj\n", "latin1"));
  };
  const body = deflateSync(Buffer.from(content, "latin1"));
  const tu = deflateSync(Buffer.from(cmap, "latin1"));
  obj(1, "<< /Type /Catalog /Pages 2 0 R >>");
  obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  obj(3, "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F4 4 0 R >> >> /Contents 5 0 R >>");
  obj(4, "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 6 0 R >>");
  obj(5, `<< /Filter /FlateDecode /Length ${body.length} >>`, body);
  obj(6, `<< /Filter /FlateDecode /Length ${tu.length} >>`, tu);
  parts.push(Buffer.from("trailer << /Root 1 0 R >>\n%%EOF\n", "latin1"));
  return Buffer.concat(parts);
}

// Glyphs 1–3 are "p", "e", "r" (bfchar); 10–12 map to "1", "2", "3" by a range from U+0031; 4 is a space.
const CMAP =
  "/CIDInit /ProcSet findresource begin\n3 beginbfchar\n<0001> <0070>\n<0002> <0065>\n<0003> <0072>\nendbfchar\n1 beginbfchar\n<0004> <0020>\nendbfchar\n1 beginbfrange\n<000a> <000c> <0031>\nendbfrange\nend";

describe("pdfText", () => {
  it("reads a ToUnicode CMap's chars and ranges", () => {
    const map = parseToUnicode(CMAP);
    expect(map.get("0001")).toBe("p");
    expect(map.get("000b")).toBe("2");
  });
  it("decodes Tj and TJ runs through the page's font, one line per positioned run", () => {
    const text = pdfText(
      tinyPdf(
        "BT /F4 12 Tf 1 0 0 -1 10 20 Tm <000100020003> Tj 1 0 0 -1 10 40 Tm [<000a> -10 <000b> -600 <000c>] TJ ET",
        CMAP,
      ),
    );
    expect(text).toBe("per\n12 3\n");
  });
  it("spells out a ligature glyph: the renderer's ﬀ (U+FB00) in \"ffcd\" reads as two f's", () => {
    // Glyph 5 maps to U+FB00 (ﬀ), as Chromium writes it for "ff" in body text; glyph 6 is "c".
    const cmap = CMAP.replace("3 beginbfchar", "5 beginbfchar\n<0005> <FB00>\n<0006> <0063>");
    expect(pdfText(tinyPdf("BT /F4 12 Tf 1 0 0 -1 10 20 Tm <000500060003> Tj ET", cmap))).toBe("ffcr\n");
  });
});
