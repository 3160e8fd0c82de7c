-- Reports are numbered in the order they arrive from a sequence: every
-- collector sharing the database draws from it, where MAX(received_seq) + 1
-- gave reports committed at once by two collectors the same number. The
-- numbers rise with arrival; a report refused as a duplicate leaves a gap.
CREATE SEQUENCE reports_received_seq_seq OWNED BY reports.received_seq;
SELECT setval('reports_received_seq_seq', COALESCE((SELECT MAX(received_seq) FROM reports), 0) + 1, false);
ALTER TABLE reports ALTER COLUMN received_seq SET DEFAULT nextval('reports_received_seq_seq');

INSERT INTO schema_version(version) VALUES (3);
