-- Runs once, when the compose stack's PostgreSQL volume is first initialised: Temporal keeps its
-- two databases in the same server as Sobre, under a role of its own that may create them. The
-- service temporal-schema creates them (temporal-sql-tool create) and sets up their schemas.
CREATE ROLE temporal LOGIN PASSWORD 'temporal' CREATEDB;
