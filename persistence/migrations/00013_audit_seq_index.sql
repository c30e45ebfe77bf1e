-- +goose Up
-- Appending to an envelope's audit log reads its last entry (ORDER BY seq DESC LIMIT 1). The
-- index on (envelope_id, created_at, seq) cannot give that order, so PostgreSQL walks the primary
-- key backwards from the newest entry of any envelope: measured with 500,000 newer entries of
-- other envelopes, 110 ms per append to an older envelope's log; with this index, 0.06 ms.
CREATE INDEX audit_logs_envelope_seq_idx ON audit_logs (envelope_id, seq);

-- +goose Down
DROP INDEX audit_logs_envelope_seq_idx;
