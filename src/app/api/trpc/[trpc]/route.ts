// The dashboard's API: CSRF check and request id in handleTrpcRequest, then tRPC.
import { handleTrpcRequest } from "@/server/api/http-handler";

export const dynamic = "force-dynamic";

const handler = (request: Request) => handleTrpcRequest(request);
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
