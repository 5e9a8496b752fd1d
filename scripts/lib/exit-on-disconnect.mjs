// Preloaded into every child the supervisor starts: when the supervisor's IPC channel closes (it exited, or
// was SIGKILLed), the child exits too, so nothing is orphaned.
if (process.connected) {
  process.on("disconnect", () => process.exit(0));
  // The channel must not keep the child alive on its own, nor block a normal exit.
  process.channel?.unref();
}
