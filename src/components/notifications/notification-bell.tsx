"use client";
// The sidebar's bell: the signed-in user's unread count, and on click their latest notifications (newest first),
// each linking to what it is about. Opening one marks it read; "Mark all read" clears the count.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { formatTime } from "@/components/format-time";
import { useTRPC } from "@/trpc/react";
import "./notifications.css";

/** Profiling jobs last minutes; a new message shows within this long without a reload. */
const POLL_MS = 10_000;

export function NotificationBell() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const list = useQuery(trpc.notifications.list.queryOptions({ limit: 20 }, { refetchInterval: POLL_MS }));
  const markRead = useMutation(
    trpc.notifications.markRead.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.notifications.list.queryKey() }),
    }),
  );

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === "Escape" : !box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("mousedown", close);
      document.removeEventListener("keydown", close);
    };
  }, [open]);

  const unread = list.data?.unread ?? 0;
  const items = list.data?.items ?? [];
  return (
    <div className="notification-bell" ref={box}>
      <button
        type="button"
        className="bell-button"
        data-testid="notification-bell"
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => setOpen(!open)}
        aria-label={unread > 0 ? `Notifications, ${unread} unread` : "Notifications"}
      >
        {/* An inline bell: no emoji font is assumed on the viewer's machine. */}
        <svg
          aria-hidden
          width="15"
          height="15"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.7 21a2 2 0 0 1-3.4 0" />
        </svg>
        Notifications
        {unread > 0 && (
          <span className="bell-count" data-testid="notification-count">
            {unread}
          </span>
        )}
      </button>
      {open && (
        <div className="bell-panel" role="dialog" aria-label="Notifications" data-testid="notification-panel">
          <div className="bell-head">
            <strong>Notifications</strong>
            <button
              type="button"
              className="btn small"
              disabled={unread === 0 || markRead.isPending}
              onClick={() => markRead.mutate({ all: true })}
              data-testid="notifications-mark-all"
            >
              Mark all read
            </button>
          </div>
          {list.error && (
            <p className="field-error" role="alert">
              {list.error.message}
            </p>
          )}
          {items.length === 0 ? (
            <p className="muted small bell-empty">
              Nothing yet. You hear here when your profiling jobs finish or fail.
            </p>
          ) : (
            <ul className="bell-list">
              {items.map((n) => (
                <li
                  key={n.id}
                  className={n.read ? "read" : "unread"}
                  data-testid="notification-item"
                  data-kind={n.kind}
                  data-read={n.read ? "true" : "false"}
                >
                  <div className="bell-title">
                    {n.link ? (
                      <Link
                        href={n.link}
                        onClick={() => {
                          if (!n.read) markRead.mutate({ ids: [n.id] });
                          setOpen(false);
                        }}
                      >
                        {n.title}
                      </Link>
                    ) : (
                      n.title
                    )}
                  </div>
                  {n.body && <div className="small">{n.body}</div>}
                  <div className="bell-meta muted small">
                    {formatTime(n.createdAt)}
                    {!n.read && (
                      <button
                        type="button"
                        className="link-button"
                        onClick={() => markRead.mutate({ ids: [n.id] })}
                        data-testid="notification-mark-read"
                      >
                        mark read
                      </button>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
