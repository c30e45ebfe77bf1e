-- +goose Up
-- A text search answered from envelope_search alone (docs/scale.md): each row now carries every
-- column GET /envelope filters on and orders by, so a query's matches need no join to envelopes,
-- and a B-tree on (team_id, created_at, envelope_id) lets a common query walk the team's rows in
-- the list's order and stop after the first FindCountCap matches. doc is stored lower-cased and
-- matched with LIKE lower(pattern), which is what ILIKE computes for each row (in a UTF-8
-- database ILIKE lower-cases both sides, then compares as LIKE): the lower-casing is done once
-- per write instead of once per row read. The table is split by team into 16 partitions (hash of
-- team_id): a search reads the trigram index of its team's partition, a sixteenth of the rows,
-- whose entries for a common trigram are that much shorter. Each partition leaves a tenth of its
-- pages free, so that a change of status, which touches no indexed column, rewrites the row in
-- place (a HOT update) without new index entries.
--
-- The new table is built and filled beside the old one, under a SHARE lock on envelopes and
-- recipients: their writes wait (the rows copied stay the rows there), their reads go on. Only
-- the swap at the end (drop the old table, rename the new one, replace the trigger, which takes
-- envelopes' strongest lock) keeps reads out, for as long as the commit that follows it takes.
LOCK TABLE envelopes, recipients IN SHARE MODE;

CREATE TABLE envelope_search_next (
    envelope_id text NOT NULL REFERENCES envelopes (id) ON DELETE CASCADE,
    team_id     bigint NOT NULL,
    created_at  timestamptz NOT NULL,
    doc         text NOT NULL,
    user_id     bigint NOT NULL,
    visibility  text NOT NULL,
    folder_id   text,
    deleted_at  timestamptz,
    status      text NOT NULL,
    type        text NOT NULL,
    source      text NOT NULL,
    template_id bigint,
    PRIMARY KEY (envelope_id, team_id)
) PARTITION BY HASH (team_id);

-- +goose StatementBegin
DO $$
BEGIN
    FOR i IN 0..15 LOOP
        EXECUTE format('CREATE TABLE envelope_search_p%s PARTITION OF envelope_search_next
            FOR VALUES WITH (MODULUS 16, REMAINDER %s) WITH (fillfactor = 90)', i, i);
    END LOOP;
END $$;
-- +goose StatementEnd

CREATE OR REPLACE VIEW envelope_search_docs AS
SELECT e.id AS envelope_id, e.team_id, e.created_at,
    lower(concat_ws(E'\n', e.title, e.external_id, string_agg(r.email || E'\n' || r.name, E'\n' ORDER BY r.id))) AS doc,
    e.user_id, e.visibility, e.folder_id, e.deleted_at, e.status, e.type, e.source, e.template_id
FROM envelopes e LEFT JOIN recipients r ON r.envelope_id = e.id
GROUP BY e.id;

-- Written in each team's order of creation, as the rows of envelopes created since will be: a
-- walk in that order reads neighbouring rows.
INSERT INTO envelope_search_next SELECT * FROM envelope_search_docs ORDER BY team_id, created_at;

CREATE INDEX envelope_search_next_doc_idx ON envelope_search_next USING gin (team_id, doc gin_trgm_ops);
CREATE INDEX envelope_search_next_list_idx ON envelope_search_next (team_id, created_at DESC, envelope_id DESC);
ANALYZE envelope_search_next;

-- The swap.
DROP TABLE envelope_search;
ALTER TABLE envelope_search_next RENAME TO envelope_search;
ALTER TABLE envelope_search RENAME CONSTRAINT envelope_search_next_pkey TO envelope_search_pkey;
ALTER TABLE envelope_search RENAME CONSTRAINT envelope_search_next_envelope_id_fkey TO envelope_search_envelope_id_fkey;
ALTER INDEX envelope_search_next_doc_idx RENAME TO envelope_search_team_doc_idx;
ALTER INDEX envelope_search_next_list_idx RENAME TO envelope_search_team_list_idx;

-- +goose StatementBegin
-- An envelope moved to another team leaves its row in the old team's partition: it is deleted,
-- and the new one written.
CREATE OR REPLACE FUNCTION envelope_search_refresh(ids text[]) RETURNS void LANGUAGE sql AS $$
    DELETE FROM envelope_search s USING envelopes e
    WHERE s.envelope_id = ANY (ids) AND e.id = s.envelope_id AND e.team_id <> s.team_id;
    INSERT INTO envelope_search AS s
    SELECT * FROM envelope_search_docs WHERE envelope_id = ANY (ids)
    ON CONFLICT (envelope_id, team_id) DO UPDATE SET created_at = excluded.created_at, doc = excluded.doc,
        user_id = excluded.user_id, visibility = excluded.visibility, folder_id = excluded.folder_id,
        deleted_at = excluded.deleted_at, status = excluded.status, type = excluded.type, source = excluded.source,
        template_id = excluded.template_id
    WHERE s IS DISTINCT FROM excluded;
$$;
-- +goose StatementEnd

DROP TRIGGER envelope_search_envelopes_updated ON envelopes;
CREATE TRIGGER envelope_search_envelopes_updated
    AFTER UPDATE OF title, external_id, team_id, created_at, user_id, visibility, folder_id, deleted_at, status, type, source, template_id ON envelopes
    FOR EACH ROW WHEN ((OLD.title, OLD.external_id, OLD.team_id, OLD.created_at, OLD.user_id, OLD.visibility, OLD.folder_id,
        OLD.deleted_at, OLD.status, OLD.type, OLD.source, OLD.template_id)
        IS DISTINCT FROM (NEW.title, NEW.external_id, NEW.team_id, NEW.created_at, NEW.user_id, NEW.visibility, NEW.folder_id,
        NEW.deleted_at, NEW.status, NEW.type, NEW.source, NEW.template_id))
    EXECUTE FUNCTION envelope_search_row_changed();

-- +goose Down
DROP TABLE envelope_search;
DROP VIEW envelope_search_docs;
CREATE TABLE envelope_search (
    envelope_id text PRIMARY KEY REFERENCES envelopes (id) ON DELETE CASCADE,
    team_id     bigint NOT NULL,
    created_at  timestamptz NOT NULL,
    doc         text NOT NULL
);
CREATE VIEW envelope_search_docs AS
SELECT e.id AS envelope_id, e.team_id, e.created_at,
    concat_ws(E'\n', e.title, e.external_id, string_agg(r.email || E'\n' || r.name, E'\n' ORDER BY r.id)) AS doc
FROM envelopes e LEFT JOIN recipients r ON r.envelope_id = e.id
GROUP BY e.id;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION envelope_search_refresh(ids text[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO envelope_search (envelope_id, team_id, created_at, doc)
    SELECT envelope_id, team_id, created_at, doc FROM envelope_search_docs WHERE envelope_id = ANY (ids)
    ON CONFLICT (envelope_id) DO UPDATE SET team_id = excluded.team_id, created_at = excluded.created_at, doc = excluded.doc
    WHERE (envelope_search.team_id, envelope_search.created_at, envelope_search.doc)
        IS DISTINCT FROM (excluded.team_id, excluded.created_at, excluded.doc);
$$;
-- +goose StatementEnd
DROP TRIGGER envelope_search_envelopes_updated ON envelopes;
CREATE TRIGGER envelope_search_envelopes_updated AFTER UPDATE OF title, external_id, team_id, created_at ON envelopes
    FOR EACH ROW WHEN ((OLD.title, OLD.external_id, OLD.team_id, OLD.created_at) IS DISTINCT FROM (NEW.title, NEW.external_id, NEW.team_id, NEW.created_at))
    EXECUTE FUNCTION envelope_search_row_changed();
INSERT INTO envelope_search SELECT * FROM envelope_search_docs;
CREATE INDEX envelope_search_team_doc_idx ON envelope_search USING gin (team_id, doc gin_trgm_ops);
