-- AlterTable
ALTER TABLE "profile_cell" ADD COLUMN     "flagged" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "interferencePct" DOUBLE PRECISION,
ADD COLUMN     "remeasured" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "rounds" INTEGER;

-- AlterTable
ALTER TABLE "profile" ADD COLUMN     "cpuPlacement" TEXT NOT NULL DEFAULT 'serving',
ADD COLUMN     "measuredCpus" INTEGER[] DEFAULT ARRAY[]::INTEGER[];
