-- AlterTable
ALTER TABLE "proposal" ADD COLUMN     "trialJobId" TEXT,
ADD COLUMN     "trial" JSONB;
