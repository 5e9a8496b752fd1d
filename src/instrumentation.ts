// Next calls register() once when a server process starts. On the nodejs runtime it starts the control plane's job
// runner (pg-boss + Job rows) and the alert evaluator; the edge runtime has no PostgreSQL connection and starts nothing.
export async function register(): Promise<void> {
  // eslint-disable-next-line no-restricted-properties -- NEXT_RUNTIME is a build-time constant Next inlines, not configuration
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Before the first request: route handlers learn the TCP peer's address from a header only this process sets.
  const { installPeerAddressHeader } = await import("@/server/http/client-address");
  installPeerAddressHeader();
  const { startControlPlaneJobs } = await import("@/server/jobs/control-plane-jobs");
  const { log } = await import("@/server/log");
  try {
    await startControlPlaneJobs();
  } catch (error) {
    // The dashboard still serves; jobs stay queued until a runner starts (here after a restart, or another replica).
    log.error("job runner failed to start", { error });
  }
  // Alerts: the rules every ALERT_EVALUATION_INTERVAL_MS (one replica at a time) and the webhook deliveries.
  const { startAlertEvaluator } = await import("@/server/jobs/alert-evaluator");
  try {
    startAlertEvaluator();
  } catch (error) {
    log.error("alert evaluator failed to start", { error });
  }
}
