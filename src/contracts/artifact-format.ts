// How an agent reads a model artifact's bytes (src/core/model-bundle/bundle.ts): one .onnx file, or a bundle of
// model.onnx with its external-data files, which it unpacks into a directory of its own. Absent: "onnx" (what a
// control plane from before bundles sends, and what an agent persisted then).
import { z } from "zod";
import { ARTIFACT_FORMATS } from "../core/model-bundle/bundle";

export const artifactFormatSchema = z.enum(ARTIFACT_FORMATS).default("onnx");
