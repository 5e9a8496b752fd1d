// Unpacks a model bundle (src/core/model-bundle/bundle.ts: model.onnx and its external-data files in a tar) into a
// new directory, so ONNX Runtime, given that directory's model.onnx, finds each data file at its location beside
// it. The bundle's hash was verified before this runs; its entries are still checked (regular files only, paths
// inside the directory) so that no bundle, however made, writes outside it.
import { createReadStream, createWriteStream, mkdirSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import {
  BUNDLE_MODEL_FILE,
  isZeroBlock,
  normalizeRelativePath,
  parsePaxRecords,
  parseTarHeader,
  relativePathProblem,
  TAR_BLOCK,
} from "@packrat/core/model-bundle/bundle";

/** A bundle that is not one (its hash matched, so the control plane stored it so). */
export class BundleError extends Error {}

export async function unpackBundle(tarPath: string, dir: string): Promise<void> {
  const file = await open(tarPath, "r");
  try {
    const { size: total } = await file.stat();
    mkdirSync(dir, { recursive: true });
    let position = 0;
    let pax: Record<string, string> = {};
    let sawModel = false;
    while (position + TAR_BLOCK <= total) {
      const block = new Uint8Array(TAR_BLOCK);
      await file.read(block, 0, TAR_BLOCK, position);
      if (isZeroBlock(block)) break;
      const header = parseTarHeader(block);
      if (typeof header === "string") throw new BundleError(`bundle ${tarPath}: ${header}`);
      const start = position + TAR_BLOCK;
      position = start + Math.ceil(header.size / TAR_BLOCK) * TAR_BLOCK;
      if (header.type === "pax") {
        const body = new Uint8Array(header.size);
        await file.read(body, 0, header.size, start);
        pax = parsePaxRecords(body);
        continue;
      }
      const name = pax.path ?? header.name;
      pax = {};
      const problem = relativePathProblem(name);
      if (header.type !== "file" || problem)
        throw new BundleError(`bundle entry "${name}" ${problem ?? "is not a regular file"}`);
      const relative = normalizeRelativePath(name);
      if (relative === BUNDLE_MODEL_FILE) sawModel = true;
      const target = join(dir, relative);
      mkdirSync(dirname(target), { recursive: true });
      if (header.size === 0)
        await pipeline(
          async function* () {
            /* empty */
          },
          createWriteStream(target, { flags: "wx" }),
        );
      else
        await pipeline(
          createReadStream(tarPath, { start, end: start + header.size - 1 }),
          createWriteStream(target, { flags: "wx" }),
        );
    }
    if (!sawModel) throw new BundleError(`bundle ${tarPath} holds no ${BUNDLE_MODEL_FILE}`);
  } finally {
    await file.close();
  }
}
