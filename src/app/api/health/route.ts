// Readiness for load balancers and Kubernetes: database reachable and migrations current. Probes are anonymous,
// so they get the verdict per check only (no version, host names or error text); the dashboard shows the rest.
import { checkHealth, publicHealth } from "@/server/services/system-service";

export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth();
  return Response.json(publicHealth(report), {
    status: report.status === "ok" ? 200 : 503,
    headers: { "cache-control": "no-store" },
  });
}
