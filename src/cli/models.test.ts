import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { modelsDir, runModelsCli, type CliIo, type Sidecar } from "./models";

const dataDir = mkdtempSync(join(tmpdir(), "models-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function io(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: { PACKRAT_DATA_DIR: dataDir },
    cwd: "/nonexistent",
    log: (l) => lines.push(l),
    error: (l) => errors.push(l),
    lines,
    errors,
  };
}

describe("npm run models", () => {
  it("puts models under $PACKRAT_DATA_DIR/models, else <cwd>/.data/models", () => {
    expect(modelsDir({ env: { PACKRAT_DATA_DIR: "/srv/p" }, cwd: "/repo" })).toBe("/srv/p/models");
    expect(modelsDir({ env: {}, cwd: "/repo" })).toBe("/repo/.data/models");
  });

  it("writes the named models and a sidecar whose sha256 and size match the file", async () => {
    const out = io();
    expect(await runModelsCli(["tiny-mlp", "tiny-cnn"], out)).toBe(0);
    for (const name of ["tiny-mlp", "tiny-cnn"]) {
      const bytes = readFileSync(join(dataDir, "models", `${name}.onnx`));
      const sidecar = JSON.parse(readFileSync(join(dataDir, "models", `${name}.json`), "utf8")) as Sidecar;
      expect(sidecar.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
      expect(sidecar.bytes).toBe(bytes.length);
      expect(sidecar.weights).toBe("synthetic weights");
    }
    expect(out.lines.join("\n")).toMatch(/tiny-mlp: wrote .*synthetic weights/);
    expect(existsSync(join(dataDir, "models", "resnet50.onnx"))).toBe(false);
  });

  it("keeps a model that is up to date, rebuilds on --force or another seed", async () => {
    const again = io();
    await runModelsCli(["tiny-mlp"], again);
    expect(again.lines[0]).toMatch(/up to date/);
    const forced = io();
    await runModelsCli(["tiny-mlp", "--force"], forced);
    expect(forced.lines[0]).toMatch(/wrote/);
    const reseeded = io();
    await runModelsCli(["tiny-mlp", "--seed", "9"], reseeded);
    expect(reseeded.lines[0]).toMatch(/seed 9/);
  });

  it("refuses an unknown model or option with exit code 2; --list writes nothing", async () => {
    const bad = io();
    expect(await runModelsCli(["resnet-51"], bad)).toBe(2);
    expect(bad.errors[0]).toMatch(/no zoo model "resnet-51"/);
    expect(await runModelsCli(["--seed", "-3"], io())).toBe(2);
    expect(await runModelsCli(["--frobnicate"], io())).toBe(2);
    const list = io();
    expect(await runModelsCli(["--list"], list)).toBe(0);
    expect(list.lines).toHaveLength(7);
    expect(list.lines.find((l) => l.startsWith("resnet50"))).toMatch(/25,557,032 parameters, synthetic weights/);
  });
});
