-- searchindex-cost.sql measures, inside one PostgreSQL server, what writing the search index
-- costs an import, for the layouts pgstore could store the terms in: 200 batches of 1,000
-- rows (each row about 14 terms drawn from a vocabulary of 300) inserted, batch by batch in
-- turn, into a copy of the messages table for each variant, each batch its own transaction.
-- It prints each variant's total time over the baseline's (no terms at all), and the sizes.
-- The terms are computed beforehand, as pgstore computes them in Go: only the server's work
-- is timed, without the client's (so the ratios are larger than an import's end to end).
--
--	PGTEST_STANDBY=0 bash scripts/pgtest.sh bash -c 'psql "$TRANSCRIPT_PG_DSN" -q -f scripts/searchindex-cost.sql'
\set ON_ERROR_STOP 1
CREATE TABLE vocab AS SELECT i, substr(md5(i::text), 1, 3 + i % 8) AS w FROM generate_series(0, 299) i;
CREATE TABLE src AS
	SELECT s, (SELECT array_agg(w) FROM (SELECT DISTINCT w FROM vocab
		WHERE i IN (SELECT (s*7 + k*k*13 + k*s) % 300 FROM generate_series(1, 14) k)) x) AS terms
	FROM generate_series(1, 1000) s;
ALTER TABLE src ADD COLUMN content text, ADD COLUMN tv tsvector, ADD COLUMN th int4[];
UPDATE src SET content = array_to_string(terms, ' ') || ' and some more words here',
	tv = array_to_tsvector(terms), th = (SELECT array_agg(hashtext(x)) FROM unnest(terms) x);

CREATE FUNCTION mk(variant text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE m_%s (desk text NOT NULL, seq bigint NOT NULL, parent bigint NOT NULL,
		content text NOT NULL, at timestamptz NOT NULL, audience text,
		terms text[] COLLATE "C", tv tsvector, th int4[], PRIMARY KEY (desk, seq))', variant);
	EXECUTE format('CREATE INDEX ON m_%s (desk, parent, seq)', variant);
	EXECUTE format('CREATE TABLE t_%s (desk text NOT NULL, seq bigint NOT NULL,
		terms text[] COLLATE "C" NOT NULL, PRIMARY KEY (desk, seq))', variant);
END $$;
SELECT mk(v) FROM unnest('{none,table,nogin,pending64,column,tsvector,hashes}'::text[]) v;
CREATE INDEX ON t_table USING gin (terms);
CREATE INDEX ON t_pending64 USING gin (terms) WITH (gin_pending_list_limit = 65536);
CREATE INDEX ON m_column USING gin (terms) WHERE terms IS NOT NULL;
CREATE INDEX ON m_tsvector USING gin (tv) WHERE tv IS NOT NULL;
CREATE INDEX ON m_hashes USING gin (th) WHERE th IS NOT NULL;

CREATE PROCEDURE run(n int) LANGUAGE plpgsql AS $$
DECLARE
	names text[] := '{none,table,nogin,pending64,column,tsvector,hashes}';
	took float8[] := array_fill(0::float8, ARRAY[7]);
	t0 timestamptz;
BEGIN
	FOR b IN 0..n-1 LOOP
		FOR v IN 1..7 LOOP
			t0 := clock_timestamp();
			CASE names[v]
			WHEN 'none' THEN
				INSERT INTO m_none (desk, seq, parent, content, at) SELECT 'd', b*1000+s, 0, content, now() FROM src;
			WHEN 'table', 'nogin', 'pending64' THEN
				EXECUTE format('INSERT INTO m_%s (desk, seq, parent, content, at) SELECT ''d'', $1*1000+s, 0, content, now() FROM src', names[v]) USING b;
				EXECUTE format('INSERT INTO t_%s SELECT ''d'', $1*1000+s, terms FROM src', names[v]) USING b;
			WHEN 'column' THEN
				INSERT INTO m_column (desk, seq, parent, content, at, terms) SELECT 'd', b*1000+s, 0, content, now(), terms FROM src;
			WHEN 'tsvector' THEN
				INSERT INTO m_tsvector (desk, seq, parent, content, at, tv) SELECT 'd', b*1000+s, 0, content, now(), tv FROM src;
			WHEN 'hashes' THEN
				INSERT INTO m_hashes (desk, seq, parent, content, at, th) SELECT 'd', b*1000+s, 0, content, now(), th FROM src;
			END CASE;
			COMMIT;
			took[v] := took[v] + extract(epoch FROM clock_timestamp() - t0);
		END LOOP;
	END LOOP;
	FOR v IN 1..7 LOOP
		RAISE NOTICE '% % s, %x', rpad(names[v], 10), round(took[v]::numeric, 2), round((took[v] / took[1])::numeric, 2);
	END LOOP;
END $$;
CALL run(200);
SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS size FROM pg_class
WHERE relname ~ '^[mt]_' AND relkind IN ('r', 'i') ORDER BY relname;
