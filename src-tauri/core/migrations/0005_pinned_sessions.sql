-- Pinned sessions are listed on their own (the sidebar shows every pinned session on top, even
-- one far older than the first page). A partial index: only pinned rows, newest first.
CREATE INDEX session_pinned_idx ON session (time_updated DESC, id DESC) WHERE pinned = 1;
