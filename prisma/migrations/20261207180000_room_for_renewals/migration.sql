-- Room on each page for the rows renewed all the time: the agent's (its lease at every heartbeat, its host load at
-- every metrics message) and the deployment's (its live report at every metrics message). With full pages
-- (fillfactor 100) a quarter of the lease renewals measured at 1 000 agents found no room beside the old version:
-- the new one went to another page, logged whole with a new index entry, instead of a same-page (HOT) update that
-- logs only the bytes that changed. Rows inserted from now on leave the room; existing rows get it as their pages are
-- rewritten. The migrator runs this file in one transaction.

ALTER TABLE "agent" SET (fillfactor = 50);
ALTER TABLE "deployment" SET (fillfactor = 70);
