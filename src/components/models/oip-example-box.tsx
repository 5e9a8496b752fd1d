"use client";
import { useState } from "react";
import { batchOneInputs, oipCurlExample } from "./oip-example";
import type { ModelDeploymentData, ModelVersionData } from "./model-types";

/** A request a user can paste into a shell to call the model on an agent (Open Inference Protocol v2). */
export function OipExampleBox({
  name,
  version,
  deployments,
}: {
  name: string;
  version: ModelVersionData | undefined;
  deployments: ModelDeploymentData[];
}) {
  const [copied, setCopied] = useState(false);
  if (!version?.analysis) return <p className="empty">No version to call yet.</p>;
  const a = version.analysis;
  // The serving dimensions the agents run with, not the analysis's: the example must be a request they accept.
  let inputs;
  try {
    inputs = batchOneInputs(a.summary.inputs, version.servingDims, a.batchAxes ?? {});
  } catch (error) {
    return (
      <p className="empty" data-testid="oip-example-missing">
        No example: {(error as Error).message}. Register a version with a value for it.
      </p>
    );
  }
  const agent = deployments.find((d) => d.inferenceUrl)?.inferenceUrl ?? "http://AGENT_HOST:8000";
  const text = oipCurlExample(name, inputs, agent);
  async function copy() {
    await navigator.clipboard?.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <>
      <div className="curl-box" data-testid="oip-example">
        <pre>
          <code>{text}</code>
        </pre>
        <button type="button" className="btn small" onClick={copy} data-testid="oip-copy">
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <div className="kv-inline">
        Batch 1, zeros for every input
        {Object.keys(version.servingDims).length
          ? ` (${Object.entries(version.servingDims)
              .map(([k, v]) => `${k} = ${v}`)
              .join(", ")})`
          : ""}
        .
        {deployments.some((d) => d.inferenceUrl)
          ? " The address is the first agent serving it."
          : " Replace AGENT_HOST with an agent that serves this model."}{" "}
        The binary tensor extension and model metadata (<code>GET /v2/models/{name}</code>) work too.
      </div>
    </>
  );
}
