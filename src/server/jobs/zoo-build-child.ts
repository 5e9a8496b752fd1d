// Builds one zoo model and writes its ONNX bytes to stdout: `node --import tsx zoo-build-child.ts NAME SEED`.
// A child process because the builders are synchronous (ResNet-50 takes ~2.5 s of CPU) and the control plane's
// event loop must keep answering meanwhile.
import { zooEntry } from "@/modelzoo/registry";

const [name, seedText] = process.argv.slice(2);
const seed = Number(seedText);
try {
  if (!name || !Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`usage: zoo-build-child NAME SEED (got ${name} ${seedText})`);
  const bytes = zooEntry(name).build(seed);
  process.stdout.write(bytes, (error) => process.exit(error ? 1 : 0));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
