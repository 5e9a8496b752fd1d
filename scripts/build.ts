// `npm run build`: next build, stamped so `npm start` knows the build matches the sources.
import { resolve } from "node:path";
import { build } from "./lib/build";

process.exit(build(resolve(import.meta.dirname, "..")) ? 0 : 1);
