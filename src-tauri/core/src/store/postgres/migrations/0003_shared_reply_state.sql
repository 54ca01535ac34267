-- What a client of any server should see of a reply another server runs (issue 16, item 2):
-- its status (a retry's attempt and countdown, not just "busy") and the questions its tool
-- calls wait on (`GET /permission`). Kept on the reply's lease, which the owner holds while
-- the reply runs and which goes with it, so nothing outlives the reply; readers use only
-- leases that have not run out, so a dead server's questions are not offered.
--
--   * `status`: the session's status as JSON (`SessionStatus`); NULL is busy.
--   * `permission_requests`: the pending requests as a JSON array, oldest first.
--   * `permission_version`: the owner's count of changes to its pending requests. A write
--     carries its count and only a newer one lands, so two writes that reach the database
--     out of order never leave the older list.

ALTER TABLE reply_lease
    ADD COLUMN status JSONB,
    ADD COLUMN permission_requests JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN permission_version BIGINT NOT NULL DEFAULT 0;
