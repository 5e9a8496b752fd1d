import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { projectFile, ProjectFileError } from "./project-file";

const root = mkdtempSync(join(tmpdir(), "project-file-"));
const elsewhere = mkdtempSync(join(tmpdir(), "project-file-beside-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});
mkdirSync(join(root, "src/lib"), { recursive: true });
writeFileSync(join(root, "src/lib/child.mjs"), "");
writeFileSync(join(elsewhere, "child.mjs"), "");

describe("projectFile", () => {
  it("prefers the file under the working directory (the project root in production)", () => {
    expect(projectFile("src/lib/child.mjs", () => pathToFileURL(join(elsewhere, "child.mjs")), root)).toBe(
      join(root, "src/lib/child.mjs"),
    );
  });

  it("falls back to the file beside the module when the working directory has none (tsx run from elsewhere)", () => {
    expect(projectFile("src/lib/child.mjs", () => pathToFileURL(join(elsewhere, "child.mjs")), elsewhere)).toBe(
      join(elsewhere, "child.mjs"),
    );
  });

  it("survives a bundler's import.meta.url that is no file: URL, or a thunk that throws", () => {
    expect(projectFile("src/lib/child.mjs", () => "/_next/static/media/child.1a2b.mjs", root)).toBe(
      join(root, "src/lib/child.mjs"),
    );
    expect(
      projectFile(
        "src/lib/child.mjs",
        () => {
          throw new TypeError("Invalid URL");
        },
        root,
      ),
    ).toBe(join(root, "src/lib/child.mjs"));
  });

  it("names what it looked for when the file is nowhere", () => {
    expect(() => projectFile("src/lib/absent.mjs", undefined, root)).toThrowError(ProjectFileError);
    expect(() => projectFile("src/lib/absent.mjs", undefined, root)).toThrowError(/src\/lib\/absent\.mjs/);
    expect(() => projectFile("/abs/child.mjs", undefined, root)).toThrowError(/relative to the project root/);
  });
});
