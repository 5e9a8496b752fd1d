-- AlterTable
ALTER TABLE "metrics_rollup" ADD COLUMN     "busyMs" DOUBLE PRECISION NOT NULL DEFAULT 0;

