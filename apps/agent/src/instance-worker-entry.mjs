// Worker-thread entry. On Node 20, loader hooks registered with --import do not reach worker threads, so this
// plain-JS file registers tsx in the thread before loading the TypeScript instance code.
import { register } from "tsx/esm/api";

register();
await import("./instance-worker.ts");
