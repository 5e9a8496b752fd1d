import { ModelUpload } from "@/components/models/model-upload";
import { ModelsTable } from "@/components/models/models-table";
import { ZooCatalog } from "@/components/models/zoo-catalog";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { env } from "@/server/env";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";
import "@/components/models/models.css";

export const dynamic = "force-dynamic";

export default async function ModelsPage() {
  const user = await requireUser("/models");
  const canEdit = roleSatisfies(user.role, "ml_engineer");
  const queryClient = getQueryClient();
  // Awaited: a query still pending when the page streams renders "loading" on the server but its data on a client
  // that received it before hydrating, a hydration mismatch (React error #418).
  await Promise.all([
    queryClient.prefetchQuery(trpc.models.list.queryOptions(undefined)),
    queryClient.prefetchQuery(trpc.models.zooCatalog.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <h1>Models</h1>
      <p className="subtitle">
        Every model the control plane knows: its versions (each an ONNX file stored once by its SHA-256), where each
        came from, what it costs per sample, and the SLO the planners and the cost report hold it to.
        {!canEdit && " ML engineers and admins upload, register and change models; you can read everything here."}
      </p>
      <ModelsTable />
      {canEdit && (
        <ModelUpload maxBytes={env().MODEL_UPLOAD_MAX_BYTES} archiveMaxBytes={env().MODEL_ARCHIVE_MAX_BYTES} />
      )}
      <ZooCatalog canEdit={canEdit} />
    </HydrateClient>
  );
}
