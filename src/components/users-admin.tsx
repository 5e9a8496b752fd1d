"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { fieldError, hasFieldErrors } from "./field-error";
import { formatTime } from "./format-time";

const roleOptions = [
  { value: "ml_engineer", label: "ML engineer" },
  { value: "sre", label: "SRE" },
  { value: "manager", label: "Manager" },
  { value: "admin", label: "Admin" },
] as const;
type RoleValue = (typeof roleOptions)[number]["value"];

export function UsersAdmin({ currentUserId }: { currentUserId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const [notice, setNotice] = useState<string | null>(null);
  const [resetFor, setResetFor] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() });

  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: (user) => {
        setNotice(`Created ${user.email} (${user.role}).`);
        void refresh();
      },
    }),
  );
  const setRole = useMutation(
    trpc.users.setRole.mutationOptions({
      onSuccess: (user) => {
        setNotice(`${user.email} is now ${user.role}; their sessions were signed out.`);
        void refresh();
      },
    }),
  );
  const setActive = useMutation(
    trpc.users.setActive.mutationOptions({
      onSuccess: (user) => {
        setNotice(user.active ? `${user.email} is active again.` : `${user.email} is deactivated and signed out.`);
        void refresh();
      },
    }),
  );
  const resetPassword = useMutation(
    trpc.users.resetPassword.mutationOptions({
      onSuccess: () => {
        setNotice("Password reset; the user's sessions were signed out.");
        setResetFor(null);
        void refresh();
      },
    }),
  );
  const rowError = setRole.error ?? setActive.error;

  function submitCreate(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setNotice(null);
    create.mutate(
      {
        email: String(data.get("email")),
        name: String(data.get("name")),
        role: String(data.get("role")) as RoleValue,
        password: String(data.get("password")),
      },
      { onSuccess: () => form.reset() },
    );
  }

  return (
    <>
      <section className="section">
        <h2>Create a user</h2>
        <form className="form inline panel" onSubmit={submitCreate} data-testid="create-user-form">
          <label className="form-field">
            <span>
              Email{" "}
              {fieldError(create.error, "email") && (
                <em className="form-field-error">{fieldError(create.error, "email")}</em>
              )}
            </span>
            <input name="email" type="email" required autoComplete="off" />
          </label>
          <label className="form-field">
            <span>
              Name{" "}
              {fieldError(create.error, "name") && (
                <em className="form-field-error">{fieldError(create.error, "name")}</em>
              )}
            </span>
            <input name="name" required autoComplete="off" />
          </label>
          <label className="form-field">
            <span>Role</span>
            <select name="role" defaultValue="ml_engineer">
              {roleOptions.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
          </label>
          <label className="form-field">
            <span>
              Password{" "}
              {fieldError(create.error, "password") && (
                <em className="form-field-error">{fieldError(create.error, "password")}</em>
              )}
            </span>
            <input
              name="password"
              type="password"
              required
              minLength={12}
              autoComplete="new-password"
              placeholder="at least 12 characters"
            />
          </label>
          <button type="submit" className="btn primary" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create user"}
          </button>
        </form>
        {create.error && !hasFieldErrors(create.error) && (
          <div className="error-box" role="alert" style={{ marginTop: 10 }}>
            {create.error.message}
          </div>
        )}
      </section>

      <section className="section">
        <h2>Users</h2>
        {notice && (
          <div className="notice" role="status" data-testid="users-notice">
            {notice}
          </div>
        )}
        {rowError && (
          <div className="error-box" role="alert" style={{ marginBottom: 12 }}>
            {rowError.message}
          </div>
        )}
        {users.error && <div className="error-box">{users.error.message}</div>}
        {users.isPending ? (
          <p className="muted">Loading…</p>
        ) : (
          users.data && (
            <div className="table-wrap">
              <table className="data" data-testid="users-table">
                <thead>
                  <tr>
                    <th>User</th>
                    <th>Role</th>
                    <th>Status</th>
                    <th>Sessions</th>
                    <th>Created</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {users.data.map((u) => {
                    const self = u.id === currentUserId;
                    return (
                      <tr key={u.id} className={u.active ? undefined : "inactive"} data-email={u.email}>
                        <td>
                          <div>
                            {u.name}
                            {self && <span className="muted"> (you)</span>}
                          </div>
                          <div className="muted mono">{u.email}</div>
                        </td>
                        <td>
                          <select
                            aria-label={`Role of ${u.email}`}
                            value={u.role}
                            disabled={self || setRole.isPending}
                            onChange={(e) => {
                              setNotice(null);
                              setRole.mutate({ userId: u.id, role: e.target.value as RoleValue });
                            }}
                          >
                            {roleOptions.map((r) => (
                              <option key={r.value} value={r.value}>
                                {r.label}
                              </option>
                            ))}
                          </select>
                        </td>
                        <td>
                          <span className={`badge ${u.active ? "ok" : "bad"}`}>
                            {u.active ? "active" : "deactivated"}
                          </span>
                        </td>
                        <td>{u.activeSessions}</td>
                        <td className="muted nowrap">{formatTime(u.createdAt)}</td>
                        <td className="actions">
                          {resetFor === u.id ? (
                            <ResetPasswordForm
                              pending={resetPassword.isPending}
                              error={fieldError(resetPassword.error, "password") ?? resetPassword.error?.message}
                              onCancel={() => {
                                setResetFor(null);
                                resetPassword.reset();
                              }}
                              onSubmit={(password) => resetPassword.mutate({ userId: u.id, password })}
                            />
                          ) : (
                            <>
                              <button
                                type="button"
                                className="btn small"
                                onClick={() => {
                                  setNotice(null);
                                  resetPassword.reset();
                                  setResetFor(u.id);
                                }}
                              >
                                Reset password
                              </button>
                              {!self && (
                                <button
                                  type="button"
                                  className={`btn small ${u.active ? "danger" : ""}`}
                                  disabled={setActive.isPending}
                                  onClick={() => {
                                    setNotice(null);
                                    setActive.mutate({ userId: u.id, active: !u.active });
                                  }}
                                >
                                  {u.active ? "Deactivate" : "Reactivate"}
                                </button>
                              )}
                            </>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        )}
      </section>
    </>
  );
}

function ResetPasswordForm(props: {
  pending: boolean;
  error?: string;
  onCancel: () => void;
  onSubmit: (password: string) => void;
}) {
  const [password, setPassword] = useState("");
  return (
    <form
      style={{ display: "inline-flex", gap: 6, alignItems: "center" }}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit(password);
      }}
    >
      <input
        type="password"
        aria-label="New password"
        placeholder="new password (12+)"
        value={password}
        minLength={12}
        required
        autoComplete="new-password"
        onChange={(e) => setPassword(e.target.value)}
        style={{ width: 170 }}
      />
      <button type="submit" className="btn small primary" disabled={props.pending}>
        Save
      </button>
      <button type="button" className="btn small" onClick={props.onCancel}>
        Cancel
      </button>
      {props.error && <span className="form-field-error">{props.error}</span>}
    </form>
  );
}
