// In-app notifications (issue #14): personal messages to one user, written in the same transaction as the event
// they announce (so a notification never outlives a rolled-back change), read from the sidebar's bell. Each user
// sees and marks only their own.
import type { Prisma, PrismaClient } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import type { ServiceCaller } from "./users-service";

export const NOTIFICATION_LIST_MAX = 50;

export interface NewNotification {
  userId: string;
  kind: string;
  title: string;
  body?: string;
  link?: string;
  target?: { type: string; id: string };
}

export async function notify(tx: Prisma.TransactionClient, n: NewNotification): Promise<void> {
  await tx.notification.create({
    data: {
      userId: n.userId,
      kind: n.kind,
      title: n.title,
      body: n.body ?? null,
      link: n.link ?? null,
      targetType: n.target?.type ?? null,
      targetId: n.target?.id ?? null,
    },
  });
}

export interface NotificationItem {
  id: string;
  kind: string;
  title: string;
  body: string | null;
  link: string | null;
  createdAt: Date;
  read: boolean;
}

/** The caller's latest notifications, newest first, and how many of all theirs are unread. */
export async function listNotifications(
  caller: ServiceCaller,
  input: { limit?: number } = {},
  prisma: PrismaClient = db(),
): Promise<{ unread: number; items: NotificationItem[] }> {
  const take = Math.min(Math.max(input.limit ?? 20, 1), NOTIFICATION_LIST_MAX);
  const [unread, rows] = await Promise.all([
    prisma.notification.count({ where: { userId: caller.user.id, readAt: null } }),
    prisma.notification.findMany({
      where: { userId: caller.user.id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take,
    }),
  ]);
  return {
    unread,
    items: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      title: r.title,
      body: r.body,
      link: r.link,
      createdAt: r.createdAt,
      read: r.readAt !== null,
    })),
  };
}

/** Marks the caller's given notifications read (or all of them); another user's ids are ignored, not an error. */
export async function markNotificationsRead(
  caller: ServiceCaller,
  input: { ids?: string[]; all?: boolean },
  prisma: PrismaClient = db(),
): Promise<{ marked: number }> {
  if (!input.all && (!input.ids || input.ids.length === 0)) return { marked: 0 };
  const r = await prisma.notification.updateMany({
    where: { userId: caller.user.id, readAt: null, ...(input.all ? {} : { id: { in: input.ids } }) },
    data: { readAt: new Date() },
  });
  return { marked: r.count };
}
