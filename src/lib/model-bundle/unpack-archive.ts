// An uploaded model archive (.tar or .zip holding one .onnx and its external-data files) unpacked into a fresh
// directory: the .onnx as model.onnx, every other file of the model's own directory (the one the .onnx is in, and
// below it) at its path relative to the model. Refused, saying which entry and why, before anything is written:
// a path that is absolute or climbs out with "..", a link or special file, a name given twice, no .onnx or more
// than one, contents larger than the limit. Finder's and macOS tar's metadata (__MACOSX/, ._*, .DS_Store) is skipped.
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { BUNDLE_MODEL_FILE, normalizeRelativePath, relativePathProblem } from "@/core/model-bundle/bundle";
import { ModelRejectedError } from "@/lib/onnx/validate-model";
import { readArchive, type ArchiveFormat } from "./read-archive";

export interface UnpackedModel {
  /** The directory holding model.onnx and the files beside it. */
  dir: string;
  modelPath: string;
  /** The .onnx's path inside the archive. */
  modelEntry: string;
  /** The other files of the model's directory, by path relative to the model, with their sizes. */
  files: Map<string, number>;
}

const bad = (message: string) => new ModelRejectedError("BAD_ARCHIVE", message);
const size = (bytes: number) =>
  bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

function platformMetadata(name: string): boolean {
  const base = name.split("/").pop() ?? "";
  return name.startsWith("__MACOSX/") || base.startsWith("._") || base === ".DS_Store";
}

export async function unpackModelArchive(
  archivePath: string,
  format: ArchiveFormat,
  dir: string,
  limits: { maxBytes: number; limitName: string },
): Promise<UnpackedModel> {
  const archive = await readArchive(archivePath, format);
  try {
    const seen = new Set<string>();
    const files: Array<{ path: string; entry: (typeof archive.entries)[number] }> = [];
    for (const entry of archive.entries) {
      const problem = relativePathProblem(entry.name);
      if (problem) throw bad(`entry "${entry.name}" ${problem}: every file of a model archive lies inside it`);
      const path = normalizeRelativePath(entry.name);
      if (path === "" || platformMetadata(path)) continue;
      if (entry.kind === "directory") continue;
      if (entry.kind !== "file")
        throw bad(
          `entry "${entry.name}" is ${entry.description}; a model archive holds only regular files and directories`,
        );
      if (seen.has(path)) throw bad(`entry "${path}" appears twice in the archive`);
      seen.add(path);
      files.push({ path, entry });
    }
    const models = files.filter((f) => /\.onnx$/i.test(f.path));
    if (models.length === 0)
      throw bad(
        `the archive holds no .onnx file (it has ${files.length} file(s)${
          files.length
            ? `: ${files
                .slice(0, 3)
                .map((f) => f.path)
                .join(", ")}`
            : ""
        })`,
      );
    if (models.length > 1) {
      throw bad(
        `the archive holds ${models.length} .onnx files (${models
          .slice(0, 4)
          .map((f) => f.path)
          .join(", ")}${models.length > 4 ? ", …" : ""}); ` + "a model archive holds one model and its data files",
      );
    }
    const total = files.reduce((sum, f) => sum + f.entry.size, 0);
    if (total > limits.maxBytes) {
      throw new ModelRejectedError(
        "TOO_LARGE",
        `the archive unpacks to ${size(total)}, more than the limit of ${size(limits.maxBytes)} (${limits.limitName})`,
      );
    }

    const model = models[0]!;
    const base = model.path.includes("/") ? `${model.path.slice(0, model.path.lastIndexOf("/"))}/` : "";
    const unpacked = new Map<string, number>();
    await mkdir(dir, { recursive: true });
    for (const file of files) {
      if (!file.path.startsWith(base)) continue; // outside the model's directory: no location can name it
      const relative = file === model ? BUNDLE_MODEL_FILE : file.path.slice(base.length);
      if (file !== model && relative === BUNDLE_MODEL_FILE) continue; // a .onnx already refused above; cannot happen
      const target = join(dir, relative);
      try {
        await mkdir(dirname(target), { recursive: true });
        await pipeline(file.entry.open(), createWriteStream(target, { flags: "wx" }));
      } catch (error) {
        if (error instanceof ModelRejectedError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOTDIR" || code === "EEXIST" || code === "EISDIR")
          throw bad(`entry "${file.path}" collides with another entry's path`);
        throw error;
      }
      if (file !== model) unpacked.set(relative, file.entry.size);
    }
    return { dir, modelPath: join(dir, BUNDLE_MODEL_FILE), modelEntry: model.path, files: unpacked };
  } finally {
    await archive.close();
  }
}
