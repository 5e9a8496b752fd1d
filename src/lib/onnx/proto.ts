/**
 * onnx-proto's generated protobufjs classes. The package is CommonJS (`module.exports = $root`), so under Node's
 * ESM loader the namespace arrives as the default export; under bundlers it may arrive as a named one.
 */
import * as onnxProtoModule from "onnx-proto";

export type { onnx as OnnxTypes } from "onnx-proto";

type OnnxNamespace = typeof onnxProtoModule.onnx;

const loaded = onnxProtoModule as unknown as { onnx?: OnnxNamespace; default?: { onnx?: OnnxNamespace } };
const namespace = loaded.onnx ?? loaded.default?.onnx;
if (namespace === undefined) throw new Error("onnx-proto did not load: no `onnx` namespace in the module");

export const onnx: OnnxNamespace = namespace;

/** ONNX's attribute type tags (AttributeProto.AttributeType); ORT wants every attribute's `type` set. */
export const AttributeType = onnx.AttributeProto.AttributeType;
/** ONNX's element type codes (TensorProto.DataType). */
export const DataType = onnx.TensorProto.DataType;
