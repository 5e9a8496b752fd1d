// A model bundle: an ONNX model whose weights live in external-data files, kept as one artifact. The stored form
// is a canonical tar (ustar, entries in a fixed order, no owners or times) of `model.onnx` followed by the data
// files its tensors name, at the paths relative to the model that their `location`s give. Wherever it is loaded
// (the control plane's checks, an agent) it is unpacked into a directory of its own, so that ONNX Runtime, given
// the path of model.onnx, finds each data file beside it. This module is the format: paths and tar headers.

/** How an artifact's bytes are to be read: one .onnx file, or a bundle (above). */
export const ARTIFACT_FORMATS = ["onnx", "onnx-bundle"] as const;
export type ArtifactFormat = (typeof ARTIFACT_FORMATS)[number];

/** The model's file name inside a bundle (whatever it was called in the uploaded archive). */
export const BUNDLE_MODEL_FILE = "model.onnx";

export const TAR_BLOCK = 512;

/**
 * Why a path inside an archive, or a tensor's external-data `location`, is not one a bundle may hold: it must be
 * relative, stay inside the model's directory (no `..`), and be a plain POSIX path. Undefined when it is fine.
 */
export function relativePathProblem(path: string): string | undefined {
  if (path.length === 0) return "is empty";
  if (path.includes("\u0000")) return "contains a NUL character";
  if (path.includes("\\")) return "contains a backslash (paths use /)";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "is an absolute path";
  const parts = path.split("/");
  if (parts.includes("..")) return "climbs out of the model's directory (..)";
  if (new TextEncoder().encode(path).length > 4096) return "is longer than 4096 bytes";
  return undefined;
}

/** "./a//b/" → "a/b": the form paths are compared and stored in (call after relativePathProblem passed). */
export function normalizeRelativePath(path: string): string {
  return path
    .split("/")
    .filter((p) => p !== "" && p !== ".")
    .join("/");
}

export type TarEntryType =
  "file" | "directory" | "symlink" | "hardlink" | "pax" | "pax-global" | "gnu-longname" | "gnu-longlink" | "other";

export interface TarHeader {
  name: string;
  size: number;
  type: TarEntryType;
  /** The raw type flag, for messages about an entry type no bundle holds. */
  typeFlag: string;
  linkName: string;
}

const ascii = new TextDecoder("utf-8");

function field(block: Uint8Array, offset: number, length: number): string {
  let end = offset;
  while (end < offset + length && block[end] !== 0) end++;
  return ascii.decode(block.subarray(offset, end));
}

/** An octal number field, or GNU's base-256 form (first byte 0x80) that holds sizes past 8 GiB. */
function numberField(block: Uint8Array, offset: number, length: number): number {
  if ((block[offset]! & 0x80) !== 0) {
    let value = 0;
    for (let i = offset + 1; i < offset + length; i++) value = value * 256 + block[i]!;
    return value;
  }
  const text = field(block, offset, length).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) return Number.NaN;
  return parseInt(text, 8);
}

export function isZeroBlock(block: Uint8Array): boolean {
  for (const b of block) if (b !== 0) return false;
  return true;
}

/** True when a 512-byte block starts a ustar/pax/GNU tar archive. */
export function looksLikeTar(block: Uint8Array): boolean {
  return block.length >= 263 && field(block, 257, 5) === "ustar";
}

/** True when bytes start a zip archive (a local file header, or the end record of an empty one). */
export function looksLikeZip(head: Uint8Array): boolean {
  return (
    head.length >= 4 &&
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))
  );
}

const TYPES: Record<string, TarEntryType> = {
  "0": "file",
  "\u0000": "file",
  "7": "file",
  "5": "directory",
  "2": "symlink",
  "1": "hardlink",
  x: "pax",
  g: "pax-global",
  L: "gnu-longname",
  K: "gnu-longlink",
};

/** Parses one header block; a string says why it is not a header (a bad checksum, a size that is no number). */
export function parseTarHeader(block: Uint8Array): TarHeader | string {
  if (block.length !== TAR_BLOCK) return "a header block is not 512 bytes";
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  const stored = numberField(block, 148, 8);
  if (stored !== sum) return "a header's checksum does not match (not a tar archive, or a damaged one)";
  const size = numberField(block, 124, 12);
  if (!Number.isSafeInteger(size) || size < 0) return "a header's size is not a number";
  const typeFlag = String.fromCharCode(block[156]!);
  const prefix = looksLikeTar(block) ? field(block, 345, 155) : "";
  const name = field(block, 0, 100);
  return {
    name: prefix ? `${prefix}/${name}` : name,
    size,
    type: TYPES[typeFlag] ?? "other",
    typeFlag,
    linkName: field(block, 157, 100),
  };
}

/** The `path` (and `size`) of a pax extended header's records ("<len> key=value\n"…). */
export function parsePaxRecords(bytes: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  let pos = 0;
  while (pos < bytes.length) {
    let space = pos;
    while (space < bytes.length && bytes[space] !== 0x20) space++;
    const length = Number(ascii.decode(bytes.subarray(pos, space)));
    if (!Number.isSafeInteger(length) || length <= 0 || pos + length > bytes.length) break;
    const record = ascii.decode(bytes.subarray(space + 1, pos + length - 1));
    const eq = record.indexOf("=");
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    pos += length;
  }
  return out;
}

const encoder = new TextEncoder();

function writeString(block: Uint8Array, offset: number, length: number, text: string): void {
  const bytes = encoder.encode(text);
  block.set(bytes.subarray(0, length), offset);
}

function writeOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  writeString(block, offset, length - 1, value.toString(8).padStart(length - 1, "0"));
}

/** One ustar header block (a file's, or with `typeFlag` "2" and a link name a symlink's: tests build bad archives). */
export function tarHeader(name: string, size: number, typeFlag = "0", linkName = ""): Uint8Array {
  const block = new Uint8Array(TAR_BLOCK);
  writeString(block, 0, 100, name);
  writeString(block, 157, 100, linkName);
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  if (size < 8 ** 11) writeOctal(block, 124, 12, size);
  else {
    block[124] = 0x80;
    let rest = size;
    for (let i = 135; i > 124; i--) {
      block[i] = rest % 256;
      rest = Math.floor(rest / 256);
    }
  }
  writeOctal(block, 136, 12, 0);
  block[156] = typeFlag.charCodeAt(0);
  writeString(block, 257, 6, "ustar");
  writeString(block, 263, 2, "00");
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  writeString(block, 148, 7, sum.toString(8).padStart(6, "0"));
  block[155] = 0x20;
  return block;
}

/** The bytes that go before a regular file's content in a bundle: a pax header for a long name, then its header. */
export function tarFileHeader(name: string, size: number): Uint8Array {
  if (encoder.encode(name).length <= 100) return tarHeader(name, size, "0");
  const body = (n: number) => `${n} path=${name}\n`;
  let length = encoder.encode(body(0)).length;
  while (encoder.encode(body(length)).length !== length) length = encoder.encode(body(length)).length;
  const record = encoder.encode(body(length));
  const pax = new Uint8Array(TAR_BLOCK + Math.ceil(record.length / TAR_BLOCK) * TAR_BLOCK);
  pax.set(tarHeader("././@PaxHeader", record.length, "x"), 0);
  pax.set(record, TAR_BLOCK);
  const out = new Uint8Array(pax.length + TAR_BLOCK);
  out.set(pax, 0);
  out.set(tarHeader(name.slice(0, 100), size, "0"), pax.length);
  return out;
}

/** Zero bytes that pad a file's content to the next block. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK);
}

/** The end of an archive: two zero blocks. */
export const TAR_END = new Uint8Array(2 * TAR_BLOCK);

/** A stored format name as the type; throws for one this code does not know (a row from a newer version). */
export function artifactFormatOf(value: string): ArtifactFormat {
  if ((ARTIFACT_FORMATS as readonly string[]).includes(value)) return value as ArtifactFormat;
  throw new Error(`unknown artifact format "${value}"`);
}
