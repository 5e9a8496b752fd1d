#!/usr/bin/env node
// `npx packrat …` in a clone, or `packrat …` after `npm install -g`: the TypeScript CLI through tsx (a dependency).
import { register } from "tsx/esm/api";

register();
// eslint-disable-next-line no-restricted-properties -- plain Node before tsx: it cannot import the CLI's env module
process.env.PACKRAT_CLI_MAIN = "1";
await import("../src/cli/packrat.ts");
