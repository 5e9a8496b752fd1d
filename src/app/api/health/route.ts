// Readiness for load balancers and Kubernetes: database reachable and migrations current.
import { checkHealth } from "@/server/services/system-service";

export const dynamic = "force-dynamic";

export async function GET() {
  const report = await checkHealth();
  return Response.json(report, { status: report.status === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } });
}
