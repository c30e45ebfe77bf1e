-- Temporal keeps its own databases in the same PostgreSQL server, under its own role.
CREATE ROLE temporal LOGIN PASSWORD 'temporal' CREATEDB;
