"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { fieldError } from "./field-error";
import { formatTime } from "./format-time";
import { OneTimeSecret } from "./one-time-secret";

export function AgentTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.agentTokens.list.queryOptions());
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.agentTokens.list.queryKey() });
  const create = useMutation(
    trpc.agentTokens.create.mutationOptions({
      onSuccess: (row) => {
        setCreated({ name: row.name, token: row.token });
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.agentTokens.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  const nameError = fieldError(create.error, "name");

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    create.mutate({ name: String(new FormData(form).get("name")) }, { onSuccess: () => form.reset() });
  }

  return (
    <>
      <section className="section">
        <h2>New agent token</h2>
        {created && (
          <OneTimeSecret
            key={created.token}
            title={`Token for “${created.name}”.`}
            secret={created.token}
            testId="new-token"
            valueTestId="new-token-value"
            onDone={() => setCreated(null)}
          >
            The agent sends it on every call to the agent API as <code>Authorization: Bearer &lt;token&gt;</code>.
          </OneTimeSecret>
        )}
        <form
          className="form inline panel"
          onSubmit={submit}
          data-testid="create-token-form"
          style={{ gridTemplateColumns: "minmax(200px, 360px) max-content" }}
        >
          <label className="form-field">
            <span>Name {nameError && <em className="form-field-error">{nameError}</em>}</span>
            <input name="name" required maxLength={100} placeholder="e.g. serving-host-1" autoComplete="off" />
          </label>
          <button type="submit" className="btn primary" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create token"}
          </button>
        </form>
        {create.error && !nameError && (
          <div className="error-box" role="alert" style={{ marginTop: 10 }}>
            {create.error.message}
          </div>
        )}
      </section>

      <section className="section">
        <h2>Tokens</h2>
        {revoke.error && (
          <div className="error-box" role="alert" style={{ marginBottom: 12 }}>
            {revoke.error.message}
          </div>
        )}
        {tokens.error && <div className="error-box">{tokens.error.message}</div>}
        {tokens.isPending ? (
          <p className="muted">Loading…</p>
        ) : (
          tokens.data &&
          (tokens.data.length === 0 ? (
            <p className="muted">No agent tokens yet.</p>
          ) : (
            <div className="table-wrap">
              <table className="data" data-testid="tokens-table">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Token</th>
                    <th>Created</th>
                    <th>Last used</th>
                    <th>Status</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {tokens.data.map((t) => (
                    <tr key={t.id} className={t.revokedAt ? "inactive" : undefined} data-name={t.name}>
                      <td>{t.name}</td>
                      <td className="mono">{t.prefix}…</td>
                      <td>
                        <div className="nowrap">{formatTime(t.createdAt)}</div>
                        <div className="muted">{t.createdBy ?? "—"}</div>
                      </td>
                      <td className="nowrap" data-testid="token-last-used">
                        {t.lastUsedAt ? formatTime(t.lastUsedAt) : <span className="muted">never</span>}
                      </td>
                      <td>
                        {t.revokedAt ? (
                          <span className="badge bad" title={formatTime(t.revokedAt)}>
                            revoked
                          </span>
                        ) : (
                          <span className="badge ok">active</span>
                        )}
                      </td>
                      <td className="actions">
                        {!t.revokedAt && (
                          <button
                            type="button"
                            className="btn small danger"
                            disabled={revoke.isPending}
                            onClick={() => revoke.mutate({ id: t.id })}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))
        )}
      </section>
    </>
  );
}
