// Regenerates the configuration tables of docs/configuration.md from the env schemas (see lib/config-docs.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentEnvSchema } from "../apps/agent/src/env";
import { loadgenEnvSchema } from "../apps/loadgen/src/env";
import { controlPlaneEnvSchema } from "../src/server/env";
import { regenerate } from "./lib/config-docs";

export const configSchemas = {
  "control-plane": controlPlaneEnvSchema,
  agent: agentEnvSchema,
  loadgen: loadgenEnvSchema,
};
export const configDocPath = join(import.meta.dirname, "..", "docs", "configuration.md");

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(configDocPath, regenerate(readFileSync(configDocPath, "utf8"), configSchemas));
  console.log(`wrote ${configDocPath}`);
}
