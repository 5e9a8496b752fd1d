// Model upload from the dashboard: streamed, validated in a watched child, analysed (model-upload-handler.ts).
import { handleModelUpload } from "@/server/api/model-upload-handler";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
// Validation (60 s) and analysis (60 s) of a large model, plus the transfer itself.
export const maxDuration = 600;

export function POST(request: Request): Promise<Response> {
  return handleModelUpload(request);
}
