"use client";
// The account page's personal API tokens: create (shown once), list, revoke.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { fieldError } from "./field-error";
import { formatTime } from "./format-time";
import { OneTimeSecret } from "./one-time-secret";

type Role = "ml_engineer" | "sre" | "manager" | "admin";

export function ApiTokens({ roles }: { roles: Array<{ value: Role; label: string }> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.apiTokens.list.queryOptions());
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiTokens.list.queryKey() });
  const create = useMutation(
    trpc.apiTokens.create.mutationOptions({
      onSuccess: (row) => {
        setCreated({ name: row.name, token: row.token });
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.apiTokens.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  const nameError = fieldError(create.error, "name");

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    create.mutate(
      {
        name: String(data.get("name")),
        role: String(data.get("role")) as Role,
        expiresInDays: Number(data.get("expiresInDays")),
      },
      { onSuccess: () => form.reset() },
    );
  }

  return (
    <>
      <section className="section">
        <h2>New API token</h2>
        {created && (
          <OneTimeSecret
            key={created.token}
            title={`Token “${created.name}”.`}
            secret={created.token}
            testId="new-api-token"
            valueTestId="new-api-token-value"
            onDone={() => setCreated(null)}
          >
            Save it to a file only you can read and run{" "}
            <code>
              packrat login --url {typeof window === "undefined" ? "URL" : window.location.origin} --token-file FILE
            </code>{" "}
            (or set <code>PACKRAT_TOKEN</code>), or send <code>Authorization: Bearer &lt;token&gt;</code>.
          </OneTimeSecret>
        )}
        <form
          className="form inline panel"
          onSubmit={submit}
          data-testid="create-api-token-form"
          style={{ gridTemplateColumns: "minmax(200px, 320px) minmax(140px, 200px) minmax(120px, 160px) max-content" }}
        >
          <label className="form-field">
            <span>Name {nameError && <em className="form-field-error">{nameError}</em>}</span>
            <input name="name" required maxLength={100} placeholder="e.g. ci-pipeline" autoComplete="off" />
          </label>
          <label className="form-field">
            <span>Role</span>
            <select name="role" defaultValue={roles[0]?.value}>
              {roles.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
          <label className="form-field">
            <span>Expires in</span>
            <select name="expiresInDays" defaultValue="30">
              {[7, 30, 90, 365].map((d) => (
                <option key={d} value={d}>
                  {d} days
                </option>
              ))}
            </select>
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
        <h2>Your tokens</h2>
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
            <p className="muted">No API tokens yet.</p>
          ) : (
            <div className="table-wrap">
              <table className="data" data-testid="api-tokens-table">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Token</th>
                    <th>Role</th>
                    <th>Created</th>
                    <th>Expires</th>
                    <th>Last used</th>
                    <th>Status</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {tokens.data.map((t) => {
                    const expired = t.expired;
                    return (
                      <tr key={t.id} className={t.revokedAt || expired ? "inactive" : undefined} data-name={t.name}>
                        <td>{t.name}</td>
                        <td className="mono">{t.prefix}…</td>
                        <td>{roles.find((r) => r.value === t.role)?.label ?? t.role}</td>
                        <td className="nowrap">{formatTime(t.createdAt)}</td>
                        <td className="nowrap">{formatTime(t.expiresAt)}</td>
                        <td className="nowrap">
                          {t.lastUsedAt ? formatTime(t.lastUsedAt) : <span className="muted">never</span>}
                        </td>
                        <td>
                          {t.revokedAt ? (
                            <span className="badge bad">revoked</span>
                          ) : expired ? (
                            <span className="badge warn">expired</span>
                          ) : (
                            <span className="badge ok">active</span>
                          )}
                        </td>
                        <td className="actions">
                          {!t.revokedAt && !expired && (
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
                    );
                  })}
                </tbody>
              </table>
            </div>
          ))
        )}
      </section>
    </>
  );
}
