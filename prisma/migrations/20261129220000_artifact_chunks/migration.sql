-- CreateTable
CREATE TABLE "artifact_blob" (
    "sha256" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL,
    "chunkSize" INTEGER NOT NULL,
    "chunks" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "artifact_blob_pkey" PRIMARY KEY ("sha256")
);

-- CreateTable
CREATE TABLE "artifact_chunk" (
    "sha256" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "artifact_chunk_pkey" PRIMARY KEY ("sha256","index")
);

-- AddForeignKey
ALTER TABLE "artifact_chunk" ADD CONSTRAINT "artifact_chunk_sha256_fkey" FOREIGN KEY ("sha256") REFERENCES "artifact_blob"("sha256") ON DELETE CASCADE ON UPDATE CASCADE;


-- Model weights hardly compress: store chunks out of line without trying (saves pglz CPU on every write).
ALTER TABLE "artifact_chunk" ALTER COLUMN "data" SET STORAGE EXTERNAL;
