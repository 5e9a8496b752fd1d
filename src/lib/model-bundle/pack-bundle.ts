// Writes a model bundle (src/core/model-bundle/bundle.ts) from an unpacked directory as a byte stream, for the
// artifact store to stage and hash: model.onnx first, then the data files in path order, no owners, modes or
// times, so that the same model and data make the same bytes (and the same sha256) whoever packed them.
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { BUNDLE_MODEL_FILE, TAR_END, tarFileHeader, tarPadding } from "@/core/model-bundle/bundle";

export async function* bundleBytes(
  dir: string,
  files: ReadonlyMap<string, number>,
  modelBytes: number,
): AsyncGenerator<Uint8Array> {
  const order: Array<[string, number]> = [
    [BUNDLE_MODEL_FILE, modelBytes],
    ...[...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ];
  for (const [path, bytes] of order) {
    yield tarFileHeader(path, bytes);
    let seen = 0;
    for await (const chunk of createReadStream(join(dir, path))) {
      seen += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (seen !== bytes) throw new Error(`${path} changed while it was packed (${seen} bytes, expected ${bytes})`);
    const pad = tarPadding(bytes);
    if (pad.length) yield pad;
  }
  yield TAR_END;
}
