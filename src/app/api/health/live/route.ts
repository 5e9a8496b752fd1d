// Liveness: the process is up and serving. Touches nothing else, so a slow database never restarts it.
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json(
    { live: true, uptimeS: Math.round(process.uptime()) },
    { headers: { "cache-control": "no-store" } },
  );
}
