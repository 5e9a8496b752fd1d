// The README stays short and every link in it and in docs/ points at a file of this repository (nothing outside
// it: a link to a sibling folder is dead for every user who clones only the repository).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const files = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("README and docs/", () => {
  it("the README is at most 150 lines", () => {
    expect(readFileSync(join(root, "README.md"), "utf8").trimEnd().split("\n").length).toBeLessThanOrEqual(150);
  });

  it("every relative link resolves to a file inside the repository", () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = resolve(dirname(join(root, file)), target!.split("#")[0]!);
        if (relative(root, path).startsWith("..") || !existsSync(path)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("no command in README or docs/ puts a secret on a command line (every user of a host can read arguments)", () => {
    const onCommandLine: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8");
      for (const [, block] of text.matchAll(/```(?:sh|bash|shell)?\n([\s\S]*?)```/g)) {
        for (const line of block!.split("\n"))
          if (/--(token|password|secret)[= ]\S/.test(line)) onCommandLine.push(`${file}: ${line.trim()}`);
      }
    }
    expect(onCommandLine).toEqual([]);
  });
});
