// The hash of everything a production build depends on, so `git pull && npm start` never serves old code.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const SKIP = new Set(["node_modules", ".next", "generated", "dist", ".data"]);

function walk(dir: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile() && !/\.test\.tsx?$/.test(entry.name)) out.push(path);
  }
}

export function sourceHash(root: string): string {
  const files: string[] = [];
  for (const dir of ["src", "apps", "public"]) walk(join(root, dir), files);
  for (const name of readdirSync(root)) {
    if (
      /^next\.config\.|^package-lock\.json$|^package\.json$|^tsconfig\.json$/.test(name) &&
      statSync(join(root, name)).isFile()
    )
      files.push(join(root, name));
  }
  files.push(join(root, "prisma", "schema.prisma"));
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    if (!existsSync(file)) continue;
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}
