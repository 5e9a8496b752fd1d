"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "./format-time";

interface Filters {
  actor: string;
  action: string;
  targetType: string;
  target: string;
  from: string;
  to: string;
}
const noFilters: Filters = { actor: "", action: "", targetType: "", target: "", from: "", to: "" };

// datetime-local inputs are in the browser's zone; Date() reads them that way.
const toDate = (value: string) => (value ? new Date(value) : undefined);
const json = (value: unknown) => (value === null || value === undefined ? "—" : JSON.stringify(value, null, 2));

export function AuditLog() {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<Filters>(noFilters);
  const [applied, setApplied] = useState<Filters>(noFilters);
  // Keyset pages: the cursors of the pages before this one, so "Newer" can step back.
  const [cursors, setCursors] = useState<string[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const options = useQuery(trpc.audit.filterOptions.queryOptions());
  const before = cursors.at(-1);
  const page = useQuery({
    ...trpc.audit.list.queryOptions({
      actor: applied.actor || undefined,
      action: applied.action || undefined,
      targetType: applied.targetType || undefined,
      target: applied.target || undefined,
      from: toDate(applied.from),
      to: toDate(applied.to),
      before,
    }),
    placeholderData: keepPreviousData,
  });

  const apply = (filters: Filters) => {
    setApplied(filters);
    setCursors([]);
    setOpen(null);
  };
  const set = (key: keyof Filters) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setDraft({ ...draft, [key]: e.target.value });

  return (
    <>
      <form
        className="filters panel"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
        data-testid="audit-filters"
      >
        <label className="form-field">
          <span>Actor</span>
          <input value={draft.actor} onChange={set("actor")} placeholder="email or token name" />
        </label>
        <label className="form-field">
          <span>Action</span>
          <select value={draft.action} onChange={set("action")}>
            <option value="">any</option>
            {options.data?.actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label className="form-field">
          <span>Target type</span>
          <select value={draft.targetType} onChange={set("targetType")}>
            <option value="">any</option>
            {options.data?.targetTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="form-field">
          <span>Target</span>
          <input value={draft.target} onChange={set("target")} placeholder="email, name or id" />
        </label>
        <label className="form-field">
          <span>From</span>
          <input type="datetime-local" value={draft.from} onChange={set("from")} />
        </label>
        <label className="form-field">
          <span>To</span>
          <input type="datetime-local" value={draft.to} onChange={set("to")} />
        </label>
        <div style={{ display: "flex", gap: 8 }}>
          <button type="submit" className="btn primary">
            Apply
          </button>
          <button
            className="btn"
            type="button"
            onClick={() => {
              setDraft(noFilters);
              apply(noFilters);
            }}
          >
            Clear
          </button>
        </div>
      </form>

      {page.error && <div className="error-box">{page.error.message}</div>}
      {page.isPending ? (
        <p className="muted">Loading…</p>
      ) : (
        page.data &&
        (page.data.events.length === 0 ? (
          <p className="muted" data-testid="audit-empty">
            No events match.
          </p>
        ) : (
          <div className="table-wrap">
            <table className="data" data-testid="audit-table">
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Actor</th>
                  <th>Action</th>
                  <th>Target</th>
                </tr>
              </thead>
              <tbody>
                {page.data.events.map((e) => (
                  <Fragment key={e.id}>
                    <tr
                      className={`clickable${open === e.id ? " open" : ""}`}
                      onClick={() => setOpen(open === e.id ? null : e.id)}
                      aria-expanded={open === e.id}
                      data-action={e.action}
                      data-target-id={e.targetId ?? undefined}
                    >
                      <td className="muted nowrap">{formatTime(e.at)}</td>
                      <td>
                        {e.actorLabel ?? "—"} <span className="muted">({e.actorType})</span>
                      </td>
                      <td className="mono">{e.action}</td>
                      <td>
                        {e.targetType ? (
                          <>
                            <span className="muted">{e.targetType}</span> {e.targetLabel ?? e.targetId}
                          </>
                        ) : (
                          "—"
                        )}
                      </td>
                    </tr>
                    {open === e.id && (
                      <tr>
                        <td colSpan={4} className="detail" data-testid="audit-detail">
                          <div className="json-pair">
                            <div>
                              <h3>Before</h3>
                              <pre>{json(e.before)}</pre>
                            </div>
                            <div>
                              <h3>After</h3>
                              <pre>{json(e.after)}</pre>
                            </div>
                          </div>
                          <div className="kv-inline">
                            event {e.id} · actor id {e.actorId ?? "—"} · target id {e.targetId ?? "—"} · request{" "}
                            {e.requestId ?? "—"}
                          </div>
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        ))
      )}
      <div className="pager">
        <span>Page {cursors.length + 1}</span>
        <button
          type="button"
          className="btn small"
          disabled={cursors.length === 0}
          onClick={() => {
            setCursors(cursors.slice(0, -1));
            setOpen(null);
          }}
        >
          ← Newer
        </button>
        <button
          type="button"
          className="btn small"
          disabled={!page.data?.nextBefore}
          onClick={() => {
            setCursors([...cursors, page.data!.nextBefore!]);
            setOpen(null);
          }}
        >
          Older →
        </button>
      </div>
    </>
  );
}
