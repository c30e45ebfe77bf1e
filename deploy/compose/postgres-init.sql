-- Runs once, when the compose stack's PostgreSQL volume is first initialised: Temporal keeps its
-- two databases in the same server as Sobre, under a role of its own. They are created here
-- because Temporal's setup does not create a database named after its own user.
CREATE ROLE temporal LOGIN PASSWORD 'temporal' CREATEDB;
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;
