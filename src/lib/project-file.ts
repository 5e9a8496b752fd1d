// Finds a file that ships beside the code (a child process's script) both under tsx/Vitest, where
// `new URL(..., import.meta.url)` points into src/, and inside Next's production bundle, where import.meta.url
// names a bundled chunk and the URL may point at nothing (or not be a file: URL at all). The project root is the
// server's working directory there (`npm start`, the Docker image), so the path from the root is tried first.
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

export class ProjectFileError extends Error {
  readonly code = "PROJECT_FILE_MISSING";
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
    this.name = "ProjectFileError";
  }
}

/**
 * The absolute path of `fromRoot` (e.g. "src/lib/onnx/probe-shapes-child.mjs"): under `cwd` when it exists there,
 * else where `beside()` (a thunk, so a bundler's rewrite of import.meta.url cannot throw at import) points.
 */
export function projectFile(fromRoot: string, beside?: () => URL | string, cwd: string = process.cwd()): string {
  if (isAbsolute(fromRoot))
    throw new ProjectFileError("fromRoot", `expected a path relative to the project root, got ${fromRoot}`);
  // Not a file Next should trace into its output: the file is read from the project at run time.
  const candidates: string[] = [join(/* turbopackIgnore: true */ cwd, fromRoot)];
  try {
    const url = beside?.();
    if (url !== undefined) {
      const parsed = new URL(String(url));
      if (parsed.protocol === "file:") candidates.push(fileURLToPath(parsed));
    }
  } catch {
    // A bundler's asset URL that is no file: the root candidate is all there is.
  }
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) {
    throw new ProjectFileError(
      "fromRoot",
      `cannot find ${fromRoot} (looked at ${candidates.join(", ")}); start the server from the project root`,
    );
  }
  return found;
}
