import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { externalWeightsModel } from "@/lib/onnx/wild-models";
import { archiveFormatOf } from "./read-archive";
import { tarArchive, zipArchive, type TestEntry } from "./test-archives";
import { unpackModelArchive } from "./unpack-archive";

const root = mkdtempSync(join(tmpdir(), "packrat-unpack-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

async function unpack(bytes: Uint8Array, maxBytes = 1024 ** 2) {
  const path = join(root, `a${++n}`);
  writeFileSync(path, bytes);
  const format = archiveFormatOf(bytes.subarray(0, 512));
  if (!format) throw new Error("not an archive");
  return unpackModelArchive(path, format, join(root, `d${n}`), { maxBytes, limitName: "MODEL_ARCHIVE_MAX_BYTES" });
}

const model = externalWeightsModel();
const good: TestEntry[] = [
  { name: "resnet/" },
  { name: "resnet/net.onnx", data: model.onnx },
  { name: "resnet/data/weights.bin", data: model.files["data/weights.bin"] },
  { name: "resnet/v.bin", data: model.files["v.bin"], deflate: true },
  { name: "README.md", data: Buffer.from("outside the model's directory") },
  { name: "__MACOSX/resnet/._net.onnx", data: Buffer.from("finder metadata") },
  { name: "resnet/._net.onnx", data: Buffer.from("macOS tar metadata") },
];

describe("unpacking a model archive", () => {
  for (const [label, build] of [
    ["tar", tarArchive],
    ["zip", zipArchive],
  ] as const) {
    it(`${label}: the .onnx as model.onnx, the files of its directory at their paths relative to it, nothing else`, async () => {
      const out = await unpack(build(good.filter((e) => !e.name.endsWith("/") || label === "zip")));
      expect(out.modelEntry).toBe("resnet/net.onnx");
      expect(readFileSync(out.modelPath).equals(Buffer.from(model.onnx))).toBe(true);
      expect([...out.files.entries()].sort()).toEqual([
        ["data/weights.bin", 576],
        ["v.bin", 256],
      ]);
      expect(readFileSync(join(out.dir, "v.bin")).equals(Buffer.from(model.files["v.bin"]!))).toBe(true);
      expect(readdirSync(out.dir).sort()).toEqual(["data", "model.onnx", "v.bin"]);
    });

    it(`${label}: refuses, naming the entry, a path that climbs out, an absolute path, a link, two models, none`, async () => {
      const onnx = { name: "m.onnx", data: model.onnx };
      await expect(unpack(build([onnx, { name: "../evil.bin", data: Buffer.from("x") }]))).rejects.toThrow(
        'entry "../evil.bin" climbs out of the model\'s directory (..)',
      );
      await expect(unpack(build([onnx, { name: "a/../../evil.bin", data: Buffer.from("x") }]))).rejects.toThrow(
        /entry "a\/\.\.\/\.\.\/evil\.bin" climbs out/,
      );
      await expect(unpack(build([onnx, { name: "/etc/passwd", data: Buffer.from("x") }]))).rejects.toThrow(
        'entry "/etc/passwd" is an absolute path',
      );
      await expect(unpack(build([onnx, { name: "v.bin", symlinkTo: "/etc/passwd" }]))).rejects.toThrow(
        /entry "v.bin" is a symbolic link.*holds only regular files/,
      );
      await expect(unpack(build([onnx, { name: "b/second.onnx", data: model.onnx }]))).rejects.toThrow(
        "the archive holds 2 .onnx files (m.onnx, b/second.onnx); a model archive holds one model and its data files",
      );
      await expect(unpack(build([{ name: "v.bin", data: Buffer.from("x") }]))).rejects.toThrow(
        "the archive holds no .onnx file (it has 1 file(s): v.bin)",
      );
      await expect(unpack(build([onnx, onnx]))).rejects.toThrow('entry "m.onnx" appears twice');
    });

    it(`${label}: refuses contents past the limit before writing a byte`, async () => {
      const error = await unpack(build(good), 600).catch((e: Error) => e);
      expect(error).toMatchObject({ code: "TOO_LARGE" });
      expect((error as Error).message).toMatch(/unpacks to .* more than the limit of .*\(MODEL_ARCHIVE_MAX_BYTES\)/);
      expect(existsSync(join(root, `d${n}`))).toBe(false);
    });
  }

  it("zip64 records and a pax long name (a data file path past 100 bytes) are read like any other", async () => {
    const zip64 = await unpack(
      zipArchive(
        good.filter((e) => !e.name.endsWith("/")),
        { zip64: true },
      ),
    );
    expect([...zip64.files.entries()].sort()).toEqual([
      ["data/weights.bin", 576],
      ["v.bin", 256],
    ]);
    expect(readFileSync(join(zip64.dir, "v.bin")).equals(Buffer.from(model.files["v.bin"]!))).toBe(true);
    const deep = `${"deep/".repeat(25)}v.bin`;
    const tar = await unpack(
      tarArchive([
        { name: "m.onnx", data: model.onnx },
        { name: deep, data: model.files["v.bin"] },
      ]),
    );
    expect([...tar.files.keys()]).toEqual([deep]);
    expect(readFileSync(join(tar.dir, deep)).equals(Buffer.from(model.files["v.bin"]!))).toBe(true);
  });

  it("zip: an entry that inflates to more than it declares (a zip bomb) fails at the first byte past it", async () => {
    const bomb = zipArchive([
      { name: "m.onnx", data: model.onnx },
      { name: "v.bin", data: new Uint8Array(1024 ** 2), deflate: true, declaredSize: 100 },
    ]);
    await expect(unpack(bomb)).rejects.toThrow("entry v.bin unpacks to more than the 100 bytes its header declares");
  });

  it("a cut-short or damaged archive says so", async () => {
    const tar = tarArchive(good);
    await expect(unpack(tar.subarray(0, 1024 + 100))).rejects.toThrow(/cut short/);
    const damaged = Buffer.from(tar);
    damaged[20] = damaged[20]! ^ 0xff;
    await expect(unpack(damaged)).rejects.toThrow(/checksum does not match/);
    const zip = zipArchive(good);
    await expect(unpack(zip.subarray(0, zip.length - 30))).rejects.toThrow(/no central directory|damaged/);
  });
});
