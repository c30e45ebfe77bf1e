-- +goose Up
-- The search of GET /envelope, kept within one team (docs/scale.md). envelope_search holds one row
-- per envelope: its team, its creation time and the text a query is matched against (title,
-- external id, the recipients' emails and names, one per line). One GIN index on (team_id, doc)
-- finds a team's matches without reading any other team's, which the trigram indexes on
-- envelopes and recipients could not (they matched every team's rows, then filtered).
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE envelope_search (
    envelope_id text PRIMARY KEY REFERENCES envelopes (id) ON DELETE CASCADE,
    team_id     bigint NOT NULL,
    created_at  timestamptz NOT NULL,
    doc         text NOT NULL
);
CREATE INDEX envelope_search_team_doc_idx ON envelope_search USING gin (team_id, doc gin_trgm_ops);

-- envelope_search_docs is each envelope's search row computed from its current state: the one
-- place the searched text is defined. envelope_search_refresh writes the rows of the envelopes
-- ids from it (the triggers below call it); `sobre seed` fills the table from it at once.
CREATE VIEW envelope_search_docs AS
SELECT e.id AS envelope_id, e.team_id, e.created_at,
    concat_ws(E'\n', e.title, e.external_id, string_agg(r.email || E'\n' || r.name, E'\n' ORDER BY r.id)) AS doc
FROM envelopes e LEFT JOIN recipients r ON r.envelope_id = e.id
GROUP BY e.id;

-- +goose StatementBegin
CREATE FUNCTION envelope_search_refresh(ids text[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO envelope_search (envelope_id, team_id, created_at, doc)
    SELECT envelope_id, team_id, created_at, doc FROM envelope_search_docs WHERE envelope_id = ANY (ids)
    ON CONFLICT (envelope_id) DO UPDATE SET team_id = excluded.team_id, created_at = excluded.created_at, doc = excluded.doc
    WHERE (envelope_search.team_id, envelope_search.created_at, envelope_search.doc)
        IS DISTINCT FROM (excluded.team_id, excluded.created_at, excluded.doc);
$$;

CREATE FUNCTION envelope_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'envelopes' THEN
        PERFORM envelope_search_refresh(ARRAY(SELECT id FROM changed));
    ELSE
        PERFORM envelope_search_refresh(ARRAY(SELECT DISTINCT envelope_id FROM changed));
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION envelope_search_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'envelopes' THEN
        PERFORM envelope_search_refresh(ARRAY[NEW.id]);
    ELSE
        PERFORM envelope_search_refresh(ARRAY[NEW.envelope_id]);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER envelope_search_envelopes_inserted AFTER INSERT ON envelopes
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envelope_search_inserted();
CREATE TRIGGER envelope_search_envelopes_updated AFTER UPDATE OF title, external_id, team_id, created_at ON envelopes
    FOR EACH ROW WHEN ((OLD.title, OLD.external_id, OLD.team_id, OLD.created_at) IS DISTINCT FROM (NEW.title, NEW.external_id, NEW.team_id, NEW.created_at))
    EXECUTE FUNCTION envelope_search_row_changed();
CREATE TRIGGER envelope_search_recipients_inserted AFTER INSERT ON recipients
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envelope_search_inserted();
CREATE TRIGGER envelope_search_recipients_deleted AFTER DELETE ON recipients
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envelope_search_inserted();
CREATE TRIGGER envelope_search_recipients_updated AFTER UPDATE OF email, name, envelope_id ON recipients
    FOR EACH ROW WHEN ((OLD.email, OLD.name, OLD.envelope_id) IS DISTINCT FROM (NEW.email, NEW.name, NEW.envelope_id))
    EXECUTE FUNCTION envelope_search_row_changed();

INSERT INTO envelope_search SELECT * FROM envelope_search_docs;

-- The list's page and its capped count read this index alone (an index-only scan): every column
-- GET /envelope filters on is in it. It replaces envelopes_team_created_idx.
CREATE INDEX envelopes_team_list_idx ON envelopes (team_id, created_at DESC, id DESC)
    INCLUDE (user_id, visibility, folder_id, deleted_at, status, type, source, template_id);
DROP INDEX envelopes_team_created_idx;

-- The trigram indexes the old search used: envelope_search replaces them.
DROP INDEX envelopes_title_trgm_idx;
DROP INDEX envelopes_external_id_trgm_idx;
DROP INDEX recipients_email_trgm_idx;
DROP INDEX recipients_name_trgm_idx;

-- +goose Down
CREATE INDEX recipients_name_trgm_idx ON recipients USING gin (name gin_trgm_ops);
CREATE INDEX recipients_email_trgm_idx ON recipients USING gin (email gin_trgm_ops);
CREATE INDEX envelopes_external_id_trgm_idx ON envelopes USING gin (external_id gin_trgm_ops);
CREATE INDEX envelopes_title_trgm_idx ON envelopes USING gin (title gin_trgm_ops);
CREATE INDEX envelopes_team_created_idx ON envelopes (team_id, created_at DESC, id);
DROP INDEX envelopes_team_list_idx;
DROP TRIGGER envelope_search_recipients_updated ON recipients;
DROP TRIGGER envelope_search_recipients_deleted ON recipients;
DROP TRIGGER envelope_search_recipients_inserted ON recipients;
DROP TRIGGER envelope_search_envelopes_updated ON envelopes;
DROP TRIGGER envelope_search_envelopes_inserted ON envelopes;
DROP FUNCTION envelope_search_row_changed();
DROP FUNCTION envelope_search_inserted();
DROP FUNCTION envelope_search_refresh(text[]);
DROP VIEW envelope_search_docs;
DROP TABLE envelope_search;
