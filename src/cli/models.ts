/**
 * `npm run models [-- NAME…] [--seed N] [--force] [--list]`: writes zoo models (ONNX) and a JSON sidecar each
 * under the data dir's models/ folder ($PACKRAT_DATA_DIR/models, else .data/models) — never into git.
 * With no names it writes all of them; a model already there with the same builder version and seed is kept.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { PRNG_NAME } from "@/modelzoo/weight-stream";
import { ZOO, zooEntry, type ZooEntry } from "@/modelzoo/registry";
import { processEnvironment } from "./env";

export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  log: (line: string) => void;
  error: (line: string) => void;
}

export interface Sidecar {
  name: string;
  title: string;
  weights: string;
  builderVersion: number;
  seed: number;
  prng: string;
  sha256: string;
  bytes: number;
  parameters: number;
  inputs: ZooEntry["inputs"];
  outputs: ZooEntry["outputs"];
  dimDefaults: Record<string, number>;
}

export function modelsDir(io: Pick<CliIo, "env" | "cwd">): string {
  return join(resolve(io.cwd, io.env.PACKRAT_DATA_DIR || ".data"), "models");
}

const USAGE = "usage: npm run models [-- NAME…] [--seed N] [--force] [--list]";

interface Args {
  names: string[];
  seed: number | undefined;
  force: boolean;
  list: boolean;
}

function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { names: [], seed: undefined, force: false, list: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--force") args.force = true;
    else if (a === "--list") args.list = true;
    else if (a === "--seed") {
      const value = Number(argv[++i]);
      if (!Number.isSafeInteger(value) || value < 0 || value > 0xffffffff)
        return `--seed needs an integer in [0, 2^32), got ${argv[i]}`;
      args.seed = value;
    } else if (a === "--help" || a === "-h") return USAGE;
    else if (a.startsWith("-")) return `unknown option ${a}\n${USAGE}`;
    else args.names.push(a);
  }
  return args;
}

async function upToDate(onnxPath: string, sidecarPath: string, entry: ZooEntry, seed: number): Promise<boolean> {
  try {
    const sidecar = JSON.parse(await readFile(sidecarPath, "utf8")) as Partial<Sidecar>;
    const info = await stat(onnxPath);
    return sidecar.builderVersion === entry.builderVersion && sidecar.seed === seed && sidecar.bytes === info.size;
  } catch {
    return false;
  }
}

const size = (bytes: number) => (bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`);

export async function runModelsCli(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === "string") {
    (args === USAGE ? io.log : io.error)(args);
    return args === USAGE ? 0 : 2;
  }
  if (args.list) {
    for (const e of ZOO)
      io.log(`${e.name.padEnd(18)} ${e.title} — ${e.parameters.toLocaleString("en-US")} parameters, ${e.weights}`);
    return 0;
  }
  let entries: ZooEntry[];
  try {
    entries = args.names.length > 0 ? args.names.map(zooEntry) : [...ZOO];
  } catch (error) {
    io.error((error as Error).message);
    return 2;
  }
  const dir = modelsDir(io);
  await mkdir(dir, { recursive: true });
  for (const entry of entries) {
    const seed = args.seed ?? entry.defaultSeed;
    const onnxPath = join(dir, `${entry.name}.onnx`);
    const sidecarPath = join(dir, `${entry.name}.json`);
    if (!args.force && (await upToDate(onnxPath, sidecarPath, entry, seed))) {
      io.log(`${entry.name}: up to date (${onnxPath})`);
      continue;
    }
    const started = Date.now();
    // One model in memory at a time: GPT-2 small alone is ~0.5 GB of weights.
    const bytes = entry.build(seed);
    const sidecar: Sidecar = {
      name: entry.name,
      title: entry.title,
      weights: entry.weights,
      builderVersion: entry.builderVersion,
      seed,
      prng: PRNG_NAME,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      bytes: bytes.length,
      parameters: entry.parameters,
      inputs: entry.inputs,
      outputs: entry.outputs,
      dimDefaults: entry.dimDefaults,
    };
    const tmp = `${onnxPath}.tmp-${process.pid}`;
    await writeFile(tmp, bytes);
    await rename(tmp, onnxPath);
    await writeFile(sidecarPath, `${JSON.stringify(sidecar, null, 2)}\n`);
    io.log(
      `${entry.name}: wrote ${onnxPath} (${size(bytes.length)}, ${entry.weights}, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runModelsCli(process.argv.slice(2), {
    env: processEnvironment(),
    cwd: process.cwd(),
    log: (l) => console.log(l),
    error: (l) => console.error(l),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
