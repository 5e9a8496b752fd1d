"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { fieldError } from "../field-error";

/** An admin sets (or removes) the hourly price of one hardware class; the report re-reads on success. */
export function PriceEditor({
  hardwareClass,
  hourlyUsd,
  note,
}: {
  hardwareClass: string;
  hourlyUsd: number | null;
  note: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const done = {
    onSuccess: () => {
      setEditing(false);
      router.refresh();
    },
  };
  const save = useMutation(trpc.cost.setPrice.mutationOptions(done));
  const remove = useMutation(trpc.cost.removePrice.mutationOptions(done));
  if (!editing) {
    return (
      <button type="button" className="btn-small" onClick={() => setEditing(true)} data-testid="price-edit">
        {hourlyUsd === null ? "Set price" : "Change"}
      </button>
    );
  }
  const err = fieldError(save.error, "hourlyUsd");
  return (
    <form
      className="price-form"
      data-testid="price-form"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        const text = String(form.get("hourlyUsd") ?? "").trim();
        save.mutate({
          hardwareClass,
          hourlyUsd: text === "" ? Number.NaN : Number(text),
          note: String(form.get("note") ?? ""),
        });
      }}
    >
      <label className="form-field">
        <span>$ per hour {err && <em className="form-field-error">{err}</em>}</span>
        <input
          name="hourlyUsd"
          type="number"
          step="any"
          min="0"
          defaultValue={hourlyUsd ?? ""}
          required
          data-testid="price-input"
        />
      </label>
      <label className="form-field">
        <span>Note</span>
        <input name="note" defaultValue={note} maxLength={500} placeholder="e.g. on-demand list price" />
      </label>
      <div className="actions">
        <button type="submit" className="btn primary" disabled={save.isPending} data-testid="price-save">
          Save
        </button>
        {hourlyUsd !== null && (
          <button
            type="button"
            className="btn danger"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ hardwareClass })}
          >
            Remove
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
        {(save.error && !err) || remove.error ? (
          <span className="form-field-error" role="alert">
            {(save.error ?? remove.error)?.message}
          </span>
        ) : null}
      </div>
    </form>
  );
}
