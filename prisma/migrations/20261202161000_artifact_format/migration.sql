-- AlterTable
ALTER TABLE "artifact" ADD COLUMN     "format" TEXT NOT NULL DEFAULT 'onnx';
