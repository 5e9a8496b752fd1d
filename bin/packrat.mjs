#!/usr/bin/env node
// `npx packrat …` in a clone, or `packrat …` after `npm install -g`: the TypeScript CLI through tsx (a dependency).
import { register } from "tsx/esm/api";

register();
process.env.PACKRAT_CLI_MAIN = "1";
await import("../src/cli/packrat.ts");
