// Reads the entries of an uploaded .tar (ustar, pax or GNU) or .zip (stored or deflated, zip64 included) from a
// file on disk, without holding the archive in memory: the index first (names, types, declared sizes), then each
// entry's content as a stream that is checked against what the index declared (its size, a zip entry's CRC-32),
// so an archive that lies about its sizes (a zip bomb) fails at the first byte past its word.
import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import { createInflateRaw, crc32 } from "node:zlib";
import {
  isZeroBlock,
  looksLikeTar,
  looksLikeZip,
  parsePaxRecords,
  parseTarHeader,
  TAR_BLOCK,
} from "@/core/model-bundle/bundle";
import { ModelRejectedError } from "@/lib/onnx/validate-model";

export type ArchiveFormat = "tar" | "zip";

export interface ArchiveEntry {
  name: string;
  kind: "file" | "directory" | "symlink" | "hardlink" | "other";
  /** What the entry is, in words, for a refusal ("a symbolic link to ../x", "a character device"). */
  description: string;
  size: number;
  /** The content: exactly `size` bytes, or the stream fails saying why. */
  open(): Readable;
}

const bad = (message: string) => new ModelRejectedError("BAD_ARCHIVE", message);

/** "tar", "zip" or undefined, from a file's first 512 bytes. */
export function archiveFormatOf(head: Uint8Array): ArchiveFormat | undefined {
  if (looksLikeZip(head)) return "zip";
  if (head.length >= TAR_BLOCK && looksLikeTar(head.subarray(0, TAR_BLOCK))) return "tar";
  return undefined;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** A stream of `size` bytes from `path` at `start`, passed through `decode`, failing on any other count or CRC. */
function checkedStream(
  path: string,
  start: number,
  storedBytes: number,
  size: number,
  name: string,
  inflate: boolean,
  crc?: number,
): Readable {
  const source =
    storedBytes === 0 ? Readable.from([]) : createReadStream(path, { start, end: start + storedBytes - 1 });
  let seen = 0;
  let sum = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > size) return done(bad(`entry ${name} unpacks to more than the ${size} bytes its header declares`));
      if (crc !== undefined) sum = crc32(chunk, sum);
      done(null, chunk);
    },
    flush(done) {
      if (seen !== size)
        return done(bad(`entry ${name} holds ${seen} bytes, not the ${size} its header declares (a damaged archive)`));
      if (crc !== undefined && sum >>> 0 !== crc >>> 0)
        return done(bad(`entry ${name} fails its CRC-32 check (a damaged archive)`));
      done();
    },
  });
  const forward = <S extends NodeJS.ReadableStream>(stream: S): S => {
    stream.on("error", (error: Error) =>
      check.destroy(
        error instanceof ModelRejectedError ? error : bad(`entry ${name} cannot be read: ${error.message}`),
      ),
    );
    return stream;
  };
  if (inflate) forward(source).pipe(forward(createInflateRaw())).pipe(check);
  else forward(source).pipe(check);
  return check;
}

async function tarIndex(path: string, file: FileHandle, fileBytes: number): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  let position = 0;
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  while (position + TAR_BLOCK <= fileBytes) {
    const block = await readAt(file, position, TAR_BLOCK);
    if (isZeroBlock(block)) return entries;
    const header = parseTarHeader(block);
    if (typeof header === "string") throw bad(`the .tar is damaged at byte ${position}: ${header}`);
    const dataStart = position + TAR_BLOCK;
    if (dataStart + header.size > fileBytes)
      throw bad(`the .tar ends in the middle of entry ${header.name} (it was cut short)`);
    position = dataStart + Math.ceil(header.size / TAR_BLOCK) * TAR_BLOCK;
    if (
      header.type === "pax" ||
      header.type === "gnu-longname" ||
      header.type === "pax-global" ||
      header.type === "gnu-longlink"
    ) {
      if (header.size > 1024 ** 2) throw bad(`the .tar has an extended header of ${header.size} bytes`);
      const body = await readAt(file, dataStart, header.size);
      if (header.type === "pax") pax = parsePaxRecords(body);
      if (header.type === "gnu-longname") longName = new TextDecoder().decode(body).replace(/\0+$/, "");
      continue;
    }
    const name = pax.path ?? longName ?? header.name;
    const size = pax.size !== undefined && /^\d+$/.test(pax.size) ? Number(pax.size) : header.size;
    if (size !== header.size) {
      // A pax size past 8 GiB: the header's own field could not hold it, and the data runs that long.
      if (dataStart + size > fileBytes) throw bad(`the .tar ends in the middle of entry ${name} (it was cut short)`);
      position = dataStart + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    }
    longName = undefined;
    pax = {};
    const kind =
      header.type === "file" || header.type === "directory" || header.type === "symlink" || header.type === "hardlink"
        ? header.type
        : "other";
    const description =
      kind === "symlink"
        ? `a symbolic link to ${header.linkName}`
        : kind === "hardlink"
          ? `a hard link to ${header.linkName}`
          : kind === "other"
            ? `an entry of type '${header.typeFlag}' (a device, FIFO or other special file)`
            : kind;
    entries.push({
      name,
      kind,
      description,
      size: kind === "file" ? size : 0,
      open: () => checkedStream(path, dataStart, size, size, name, false),
    });
  }
  throw bad("the .tar ends without its end-of-archive blocks (it was cut short)");
}

const u16 = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8);
const u32 = (b: Uint8Array, o: number) => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
const u64 = (b: Uint8Array, o: number) => u32(b, o) + u32(b, o + 4) * 2 ** 32;

async function zipIndex(path: string, file: FileHandle, fileBytes: number): Promise<ArchiveEntry[]> {
  const tailBytes = Math.min(fileBytes, 22 + 65_535);
  const tail = await readAt(file, fileBytes - tailBytes, tailBytes);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--)
    if (u32(tail, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw bad("the .zip has no central directory (it was cut short, or is not a zip)");
  let count = u16(tail, eocd + 10);
  let cdBytes = u32(tail, eocd + 12);
  let cdOffset = u32(tail, eocd + 16);
  if (u16(tail, eocd + 4) !== 0 || u16(tail, eocd + 6) !== 0)
    throw bad("the .zip spans several disks, which is not supported");
  if (count === 0xffff || cdBytes === 0xffffffff || cdOffset === 0xffffffff) {
    const locatorAt = fileBytes - tailBytes + eocd - 20;
    const locator = locatorAt >= 0 ? await readAt(file, locatorAt, 20) : new Uint8Array();
    if (locator.length < 20 || u32(locator, 0) !== 0x07064b50) throw bad("the .zip's zip64 end record is missing");
    const record = await readAt(file, u64(locator, 8), 56);
    if (record.length < 56 || u32(record, 0) !== 0x06064b50) throw bad("the .zip's zip64 end record is damaged");
    count = u64(record, 32);
    cdBytes = u64(record, 40);
    cdOffset = u64(record, 48);
  }
  if (cdOffset + cdBytes > fileBytes || cdBytes > 256 * 1024 ** 2)
    throw bad("the .zip's central directory lies outside the file (a damaged archive)");
  const cd = await readAt(file, cdOffset, cdBytes);
  const entries: ArchiveEntry[] = [];
  let pos = 0;
  for (let n = 0; n < count; n++) {
    if (pos + 46 > cd.length || u32(cd, pos) !== 0x02014b50) throw bad("the .zip's central directory is damaged");
    const madeBy = u16(cd, pos + 4) >> 8;
    const flags = u16(cd, pos + 8);
    const method = u16(cd, pos + 10);
    const crc = u32(cd, pos + 16);
    let stored = u32(cd, pos + 20);
    let size = u32(cd, pos + 24);
    const nameLength = u16(cd, pos + 28);
    const extraLength = u16(cd, pos + 30);
    const commentLength = u16(cd, pos + 32);
    const mode = u32(cd, pos + 38) >>> 16;
    let localOffset = u32(cd, pos + 42);
    const name = new TextDecoder().decode(cd.subarray(pos + 46, pos + 46 + nameLength));
    const extra = cd.subarray(pos + 46 + nameLength, pos + 46 + nameLength + extraLength);
    for (let e = 0; e + 4 <= extra.length;) {
      const id = u16(extra, e);
      const length = u16(extra, e + 2);
      if (id === 0x0001) {
        let at = e + 4;
        if (size === 0xffffffff) {
          size = u64(extra, at);
          at += 8;
        }
        if (stored === 0xffffffff) {
          stored = u64(extra, at);
          at += 8;
        }
        if (localOffset === 0xffffffff) {
          localOffset = u64(extra, at);
        }
      }
      e += 4 + length;
    }
    pos += 46 + nameLength + extraLength + commentLength;
    if ((flags & 1) !== 0) throw bad(`entry ${name} is encrypted; upload an archive without a password`);
    const type = madeBy === 3 ? mode & 0o170000 : 0;
    const kind: ArchiveEntry["kind"] =
      name.endsWith("/") || type === 0o040000
        ? "directory"
        : type === 0o120000
          ? "symlink"
          : type === 0 || type === 0o100000
            ? "file"
            : "other";
    if (kind === "file" && method !== 0 && method !== 8)
      throw bad(`entry ${name} is compressed with zip method ${method}; use stored or deflate`);
    const description =
      kind === "symlink" ? "a symbolic link" : kind === "other" ? "a special file (a device, FIFO or socket)" : kind;
    entries.push({
      name,
      kind,
      description,
      size: kind === "file" ? size : 0,
      open: () => {
        const local = new Transform({
          transform(chunk, _e, done) {
            done(null, chunk);
          },
        });
        // The data starts after the local header, whose name and extra field may differ in length from the index's.
        readAt(file, localOffset, 30)
          .then((head) => {
            if (head.length < 30 || u32(head, 0) !== 0x04034b50) throw bad(`entry ${name}'s local header is damaged`);
            const start = localOffset + 30 + u16(head, 26) + u16(head, 28);
            if (start + stored > fileBytes)
              throw bad(`the .zip ends in the middle of entry ${name} (it was cut short)`);
            checkedStream(path, start, stored, size, name, method === 8, crc)
              .on("error", (error) => local.destroy(error))
              .pipe(local);
          })
          .catch((error: Error) => local.destroy(error));
        return local;
      },
    });
  }
  return entries;
}

/**
 * The entries of the archive at `path`, and a function to release it (the zip reader keeps the file open). Throws
 * ModelRejectedError("BAD_ARCHIVE") for a damaged or unsupported archive, saying what is wrong.
 */
export async function readArchive(
  path: string,
  format: ArchiveFormat,
): Promise<{ entries: ArchiveEntry[]; close(): Promise<void> }> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    const entries = format === "tar" ? await tarIndex(path, file, size) : await zipIndex(path, file, size);
    return { entries, close: () => file.close() };
  } catch (error) {
    await file.close();
    throw error;
  }
}
