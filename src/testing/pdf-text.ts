// The text of a PDF as Chromium's page.pdf() writes it (Skia: Flate streams, Type0 fonts with ToUnicode CMaps,
// glyph ids in hex strings), enough for a test to check what a printed page says. No dependencies: node:zlib only.
// Not a general PDF reader: no encryption, no xref-stream-only files without plain objects, no Type3 glyph names.
import { inflateSync, constants } from "node:zlib";

interface PdfObject {
  dict: string;
  stream: Buffer | null;
}

function inflate(data: Buffer): Buffer {
  try {
    return inflateSync(data);
  } catch {
    return inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH }); // tolerate a trailing EOL counted as data
  }
}

/** Every `N G obj … endobj`, streams decoded; objects packed in object streams unpacked too. */
export function pdfObjects(pdf: Buffer): Map<number, PdfObject> {
  const text = pdf.toString("latin1"); // one char per byte: indexes are byte offsets
  const objects = new Map<number, PdfObject>();
  const header = /(\d+)\s+\d+\s+obj\b/g;
  let m: RegExpExecArray | null;
  while ((m = header.exec(text))) {
    const start = m.index + m[0].length;
    const streamAt = text.indexOf("stream", start);
    const endAt = text.indexOf("endobj", start);
    if (endAt < 0) break;
    if (streamAt >= 0 && streamAt < endAt && text[streamAt - 1] !== "d") {
      const dict = text.slice(start, streamAt);
      let dataStart = streamAt + "stream".length;
      if (text[dataStart] === "\r") dataStart++;
      if (text[dataStart] === "\n") dataStart++;
      const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
      const dataEnd = length ? dataStart + Number(length[1]) : text.indexOf("endstream", dataStart);
      let data = pdf.subarray(dataStart, dataEnd);
      if (/\/FlateDecode/.test(dict)) data = inflate(data);
      objects.set(Number(m[1]), { dict, stream: data });
      header.lastIndex = text.indexOf("endobj", dataEnd) + 6;
    } else {
      objects.set(Number(m[1]), { dict: text.slice(start, endAt), stream: null });
      header.lastIndex = endAt + 6;
    }
  }
  for (const obj of [...objects.values()]) {
    if (!/\/Type\s*\/ObjStm/.test(obj.dict) || !obj.stream) continue;
    const n = Number(/\/N\s+(\d+)/.exec(obj.dict)?.[1] ?? 0);
    const first = Number(/\/First\s+(\d+)/.exec(obj.dict)?.[1] ?? 0);
    const body = obj.stream.toString("latin1");
    const pairs = body.slice(0, first).trim().split(/\s+/).map(Number);
    for (let i = 0; i < n; i++) {
      const from = first + pairs[2 * i + 1]!;
      const to = i + 1 < n ? first + pairs[2 * i + 3]! : body.length;
      objects.set(pairs[2 * i]!, { dict: body.slice(from, to), stream: null });
    }
  }
  return objects;
}

/** A CMap destination: UTF-16BE code units (4 hex digits each), or single bytes when that is all there is. */
const hexToString = (hex: string) => {
  const clean = hex.replace(/\s+/g, "");
  const width = clean.length % 4 === 0 ? 4 : 2;
  let out = "";
  for (let i = 0; i + width <= clean.length; i += width)
    out += String.fromCharCode(parseInt(clean.slice(i, i + width), 16));
  return out;
};

/** A ToUnicode CMap: glyph code (hex, as written) → text. */
export function parseToUnicode(cmap: string): Map<string, string> {
  const map = new Map<string, string>();
  const norm = (h: string) => h.toLowerCase();
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, text] of block[1]!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]*)>/g))
      map.set(norm(code!), hexToString(text!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, rest] of block[1]!.matchAll(
      /<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(<[0-9a-fA-F]*>|\[[^\]]*\])/g,
    )) {
      const from = parseInt(lo!, 16);
      const to = parseInt(hi!, 16);
      const width = lo!.length;
      const targets = rest!.startsWith("[")
        ? [...rest!.matchAll(/<([0-9a-fA-F]*)>/g)].map((t) => hexToString(t[1]!))
        : null;
      const base = targets ? 0 : parseInt(rest!.slice(1, -1), 16);
      for (let c = from; c <= to; c++) {
        const key = c.toString(16).padStart(width, "0");
        map.set(key, targets ? (targets[c - from] ?? "") : String.fromCodePoint(base + (c - from)));
      }
    }
  }
  return map;
}

const ref = (dict: string, key: string) => {
  const m = new RegExp(`/${key}\\s+(\\d+)\\s+\\d+\\s+R`).exec(dict);
  return m ? Number(m[1]) : null;
};

/** The `<< … >>` value that follows `/key` (balanced), or the dict of the object it references. */
function subDict(dict: string, key: string, objects: Map<number, PdfObject>): string {
  const at = dict.search(new RegExp(`/${key}\\b`));
  if (at < 0) return "";
  const after = dict.slice(at + key.length + 1).trimStart();
  if (after.startsWith("<<")) {
    let depth = 0;
    for (let i = 0; i < after.length - 1; i++) {
      if (after.startsWith("<<", i)) {
        depth++;
        i++;
      } else if (after.startsWith(">>", i)) {
        depth--;
        i++;
        if (depth === 0) return after.slice(0, i + 1);
      }
    }
    return after;
  }
  const r = /^(\d+)\s+\d+\s+R/.exec(after);
  return r ? (objects.get(Number(r[1]))?.dict ?? "") : "";
}

/**
 * The text of every page, in content-stream order; a new text line (Td, TD, T*, Tm) starts a new line. Typographic
 * ligatures the renderer chose (ﬀ, ﬁ, ﬂ …, one glyph mapped to one code point) are spelled out (NFKC), as a reader
 * copying the text would get them: "cost-untested-ffcd76" must not read "cost-untested-ﬀcd76".
 */
export function pdfText(pdf: Buffer): string {
  const objects = pdfObjects(pdf);
  const cmaps = new Map<number, Map<string, string>>();
  const fontMap = (fontObj: number) => {
    if (!cmaps.has(fontObj)) {
      const tu = ref(objects.get(fontObj)?.dict ?? "", "ToUnicode");
      const stream = tu !== null ? objects.get(tu)?.stream : null;
      cmaps.set(fontObj, stream ? parseToUnicode(stream.toString("latin1")) : new Map());
    }
    return cmaps.get(fontObj)!;
  };
  const pages: string[] = [];
  for (const [, page] of objects) {
    if (!/\/Type\s*\/Page\b(?!s)/.test(page.dict)) continue;
    const fonts = new Map<string, number>();
    for (const [, name, num] of subDict(subDict(page.dict, "Resources", objects), "Font", objects).matchAll(
      /\/([^\s/<>[\]]+)\s+(\d+)\s+\d+\s+R/g,
    ))
      fonts.set(name!, Number(num));
    const contents =
      /\/Contents\s*\[([^\]]*)\]/.exec(page.dict)?.[1] ?? /\/Contents\s+(\d+\s+\d+\s+R)/.exec(page.dict)?.[1] ?? "";
    let out = "";
    for (const [, num] of contents.matchAll(/(\d+)\s+\d+\s+R/g)) {
      const stream = objects.get(Number(num))?.stream?.toString("latin1") ?? "";
      let cmap = new Map<string, string>();
      const decode = (hex: string) => {
        const clean = hex.replace(/\s+/g, "").toLowerCase();
        const width = cmap.size ? [...cmap.keys()][0]!.length : 4;
        let s = "";
        for (let i = 0; i < clean.length; i += width) s += cmap.get(clean.slice(i, i + width)) ?? "";
        return s;
      };
      const tokens =
        /\/([^\s/<>[\]()]+)\s+[-\d.]+\s+Tf|\[((?:[^\]\\]|\\.)*)\]\s*TJ|<([0-9a-fA-F\s]*)>\s*Tj|\((((?:[^()\\]|\\.)*))\)\s*Tj|\b(Td|TD|T\*|Tm|ET)\b/g;
      for (const t of stream.matchAll(tokens)) {
        if (t[1] !== undefined) cmap = fonts.has(t[1]) ? fontMap(fonts.get(t[1])!) : new Map();
        else if (t[2] !== undefined) {
          for (const part of t[2].matchAll(/<([0-9a-fA-F\s]*)>|\(((?:[^()\\]|\\.)*)\)|(-?[\d.]+)/g)) {
            if (part[1] !== undefined) out += decode(part[1]);
            else if (part[2] !== undefined) out += part[2];
            else if (Number(part[3]) < -250) out += " "; // a wide negative adjustment is a word gap
          }
        } else if (t[3] !== undefined) out += decode(t[3]);
        else if (t[4] !== undefined) out += t[4];
        else if (t[6] !== undefined && out !== "" && !out.endsWith("\n")) out += "\n";
      }
    }
    pages.push(out);
  }
  return pages.join("\n").replace(/[\uFB00-\uFB06]/g, (ligature) => ligature.normalize("NFKC"));
}
