// Test data: .tar and .zip archives written here, byte by byte, including the wrong kinds (links, paths that climb
// out, sizes that lie) that no archiver of good habits writes.
import { deflateRawSync, crc32 } from "node:zlib";
import { TAR_END, tarFileHeader, tarHeader, tarPadding } from "../../core/model-bundle/bundle";

export interface TestEntry {
  name: string;
  data?: Uint8Array;
  /** A symbolic link to this target instead of a file. */
  symlinkTo?: string;
  /** Zip: compress with deflate (default: stored). */
  deflate?: boolean;
  /** Zip: the uncompressed size the headers declare, when it should lie. */
  declaredSize?: number;
}

export function tarArchive(entries: readonly TestEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    if (e.symlinkTo !== undefined) {
      parts.push(tarHeader(e.name, 0, "2", e.symlinkTo));
      continue;
    }
    const data = e.data ?? new Uint8Array();
    parts.push(tarFileHeader(e.name, data.length), data, tarPadding(data.length));
  }
  parts.push(TAR_END);
  return Buffer.concat(parts);
}

/** A zip; with `zip64`, every size and offset in the zip64 extra fields and end records, as archivers write past 4 GiB. */
export function zipArchive(entries: readonly TestEntry[], options: { zip64?: boolean } = {}): Uint8Array {
  const z64 = options.zip64 === true;
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const raw = Buffer.from(e.symlinkTo !== undefined ? Buffer.from(e.symlinkTo) : (e.data ?? new Uint8Array()));
    const stored = e.deflate ? deflateRawSync(raw) : raw;
    const crc = crc32(raw);
    const size = e.declaredSize ?? raw.length;
    const method = e.deflate ? 8 : 0;
    const max = 0xffffffff;
    const localExtra = z64
      ? Buffer.concat([Buffer.from([1, 0, 16, 0]), u64(size), u64(stored.length)])
      : Buffer.alloc(0);
    const centralExtra = z64
      ? Buffer.concat([Buffer.from([1, 0, 24, 0]), u64(size), u64(stored.length), u64(offset)])
      : Buffer.alloc(0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(z64 ? 45 : 20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(z64 ? max : stored.length, 18);
    local.writeUInt32LE(z64 ? max : size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(localExtra.length, 28);
    const mode = e.symlinkTo !== undefined ? 0o120777 : 0o100644;
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE((3 << 8) | 20, 4);
    head.writeUInt16LE(20, 6);
    head.writeUInt16LE(0x0800, 8);
    head.writeUInt16LE(method, 10);
    head.writeUInt16LE(0, 12);
    head.writeUInt16LE(0x21, 14);
    head.writeUInt32LE(crc, 16);
    head.writeUInt32LE(z64 ? max : stored.length, 20);
    head.writeUInt32LE(z64 ? max : size, 24);
    head.writeUInt16LE(name.length, 28);
    head.writeUInt16LE(centralExtra.length, 30);
    head.writeUInt32LE((mode << 16) >>> 0, 38);
    head.writeUInt32LE(z64 ? max : offset, 42);
    locals.push(local, name, localExtra, stored);
    central.push(head, name, centralExtra);
    offset += local.length + name.length + localExtra.length + stored.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(z64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(z64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(z64 ? 0xffffffff : cd.length, 12);
  end.writeUInt32LE(z64 ? 0xffffffff : offset, 16);
  if (!z64) return Buffer.concat([...locals, cd, end]);
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(entries.length), 24);
  record.writeBigUInt64LE(BigInt(entries.length), 32);
  record.writeBigUInt64LE(BigInt(cd.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([...locals, cd, record, locator, end]);
}
