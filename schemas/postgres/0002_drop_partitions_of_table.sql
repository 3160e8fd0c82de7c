-- Retention keeps each table for its own age: the day partitions of one
-- partitioned table that end at or before before_ms are dropped (whole days
-- only: a day still partly inside the window stays); returns how many.
CREATE FUNCTION rdmascope_drop_partitions_before(tbl text, before_ms bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  p record;
  dropped integer := 0;
BEGIN
  FOR p IN
    SELECT c.relname AS part, (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''?(-?[0-9]+)''?\)'))[1]::bigint AS hi
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class parent ON parent.oid = i.inhparent
    WHERE parent.relname = tbl AND tbl IN (SELECT name FROM rdmascope_partitioned) AND c.relname ~ '_p[0-9]{8}$'
  LOOP
    IF p.hi IS NOT NULL AND p.hi <= before_ms THEN
      EXECUTE format('DROP TABLE %I', p.part);
      dropped := dropped + 1;
    END IF;
  END LOOP;
  RETURN dropped;
END $$;

INSERT INTO schema_version(version) VALUES (2);
