// The Open Inference Protocol over gRPC (KServe v2 GRPCInferenceService): the .proto beside this file, loaded the
// same way by the agent (server) and the load generator (client).
import { fileURLToPath } from "node:url";
import * as protoLoader from "@grpc/proto-loader";

export const OIP_PROTO_PATH = fileURLToPath(new URL("./grpc-predict-v2.proto", import.meta.url));

/** Messages as both sides see them: snake_case fields as in the .proto, int64 as numbers, every field present. */
export const OIP_PROTO_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export const OIP_GRPC_SERVICE = "inference.GRPCInferenceService";

export function loadOipProto(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(OIP_PROTO_PATH, OIP_PROTO_OPTIONS);
}
