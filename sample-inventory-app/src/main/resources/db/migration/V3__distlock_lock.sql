-- A copy of META-INF/distlock/jdbc/schema-postgresql.sql from distlock-jdbc, as a migration: the
-- lease table of the PostgreSQL lock store, used when distlock.store=jdbc.
-- The lease table of distlock's PostgreSQL lock store (distlock-jdbc, PostgresLockRegistry).
-- Usable as it is from Flyway or Liquibase; distlock.jdbc.initialize-schema runs it too, with
-- distlock_lock replaced by distlock.jdbc.table-name.
--
-- One row per key ever locked. A released or expired row is kept with its fencing token, so that
-- every later grant of the key gets a larger token whatever happens to the application. All times
-- are the database's own (clock_timestamp()); no column is written from a JVM clock.
--   lock_key       the user key
--   owner          the holder's grant (registry instance and grant id), null when released
--   token          the fencing token of the latest grant
--   expires_at     when the holder's lease ends, null when released
--   awaited_until  until when some waiter said it waits (a release then sends NOTIFY)
-- A fill factor below 100 leaves room on each page for the updates every grant, renewal and
-- release makes, so that they stay heap-only (HOT) and the primary key index is not rewritten.
CREATE TABLE IF NOT EXISTS distlock_lock (
    lock_key      TEXT        NOT NULL PRIMARY KEY,
    owner         TEXT,
    token         BIGINT      NOT NULL,
    expires_at    TIMESTAMPTZ,
    awaited_until TIMESTAMPTZ
) WITH (fillfactor = 70);
