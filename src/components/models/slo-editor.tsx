"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { fieldError } from "../field-error";
import { formatSlo } from "./format";
import type { ModelDetailData } from "./model-types";

const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

/** The model's SLO: a deadline at a quantile, and for generative models TTFT and TPOT. */
export function SloEditor({ model, canEdit }: { model: ModelDetailData; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const save = useMutation(
    trpc.models.setSlo.mutationOptions({
      onSuccess: async () => {
        setEditing(false);
        await queryClient.invalidateQueries({ queryKey: trpc.models.get.queryKey({ id: model.id }) });
        await queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
      },
    }),
  );
  const slo = model.slo;

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (key: string) => String(form.get(key) ?? "");
    const percentile = numberOrNull(text("percentile"));
    save.mutate({
      modelId: model.id,
      deadlineMs: numberOrNull(text("deadlineMs")),
      quantile: percentile === null ? null : percentile / 100,
      ttftMs: numberOrNull(text("ttftMs")),
      tpotMs: numberOrNull(text("tpotMs")),
    });
  }

  const err = (field: string) => fieldError(save.error, field);
  return (
    <section className="section panel" data-testid="slo-section">
      <h2 style={{ fontSize: 16, margin: "0 0 8px" }}>Service-level objective</h2>
      <div className="slo-current" data-testid="slo-current">
        {formatSlo(slo)}
      </div>
      <div className="kv-inline" style={{ marginTop: 4 }}>
        {slo ? (
          <>
            {Math.round(slo.quantile * 1000) / 10}% of requests must finish within {slo.deadlineMs} ms. The planners,
            the validator and the cost report read it.
          </>
        ) : (
          <>No SLO: the planners and the cost report cannot judge this model until it has one.</>
        )}
      </div>
      {canEdit && !editing && (
        <button
          type="button"
          className="btn small"
          style={{ marginTop: 12 }}
          onClick={() => setEditing(true)}
          data-testid="slo-edit"
        >
          {slo ? "Change SLO" : "Set SLO"}
        </button>
      )}
      {canEdit && editing && (
        <form className="slo-form" onSubmit={submit} data-testid="slo-form">
          <label className="form-field">
            <span>Deadline (ms) {err("deadlineMs") && <em className="form-field-error">{err("deadlineMs")}</em>}</span>
            <input
              name="deadlineMs"
              type="number"
              step="any"
              min="0"
              defaultValue={slo?.deadlineMs ?? ""}
              placeholder="50"
              data-testid="slo-deadline"
            />
          </label>
          <label className="form-field">
            <span>Percentile {err("quantile") && <em className="form-field-error">{err("quantile")}</em>}</span>
            <input
              name="percentile"
              type="number"
              step="any"
              min="0"
              max="100"
              defaultValue={slo ? Math.round(slo.quantile * 1e6) / 1e4 : 99}
              placeholder="99"
              data-testid="slo-percentile"
            />
          </label>
          <label className="form-field">
            <span title="Generative models: time to first token">
              TTFT (ms) {err("ttftMs") && <em className="form-field-error">{err("ttftMs")}</em>}
            </span>
            <input
              name="ttftMs"
              type="number"
              step="any"
              min="0"
              defaultValue={slo?.ttftMs ?? ""}
              placeholder="generative only"
            />
          </label>
          <label className="form-field">
            <span title="Generative models: time per output token">
              TPOT (ms) {err("tpotMs") && <em className="form-field-error">{err("tpotMs")}</em>}
            </span>
            <input
              name="tpotMs"
              type="number"
              step="any"
              min="0"
              defaultValue={slo?.tpotMs ?? ""}
              placeholder="generative only"
            />
          </label>
          <div className="actions">
            <button type="submit" className="btn primary" disabled={save.isPending} data-testid="slo-save">
              {save.isPending ? "Saving…" : "Save SLO"}
            </button>
            {slo && (
              <button
                type="button"
                className="btn danger"
                disabled={save.isPending}
                onClick={() =>
                  save.mutate({ modelId: model.id, deadlineMs: null, quantile: null, ttftMs: null, tpotMs: null })
                }
              >
                Clear
              </button>
            )}
            <button
              type="button"
              className="btn"
              onClick={() => {
                setEditing(false);
                save.reset();
              }}
            >
              Cancel
            </button>
            {save.error && !err("deadlineMs") && !err("quantile") && !err("ttftMs") && !err("tpotMs") && (
              <span className="form-field-error" role="alert">
                {save.error.message}
              </span>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
