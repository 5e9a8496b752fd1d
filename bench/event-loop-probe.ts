// Loaded into each control-plane replica by the heartbeats benchmark (node --import): once a second, one line on
// stdout with the event loop's delay over that second (max, p99, mean, in ms), so the benchmark can tell a replica
// whose event loop stalls (every request behind the stall waits) from one that is merely busy. Not production code.
import { monitorEventLoopDelay } from "node:perf_hooks";

// The tag the benchmark looks for (heartbeats.bench.ts's EVENT_LOOP_PROBE_TAG; not imported: importing this module
// starts the probe).
const EVENT_LOOP_PROBE_TAG = "packratEventLoopProbe";

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
setInterval(() => {
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  process.stdout.write(
    `${JSON.stringify({ [EVENT_LOOP_PROBE_TAG]: { at: Date.now(), maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), meanMs: ms(histogram.mean) } })}\n`,
  );
  histogram.reset();
}, 1000).unref();
