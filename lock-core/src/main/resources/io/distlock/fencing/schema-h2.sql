-- The fence table of io.distlock.fencing.JdbcFencing: one row per fenced resource, holding the
-- newest fencing token written to it. Usable as it is from Flyway or Liquibase.
CREATE TABLE IF NOT EXISTS distlock_fence (
    resource VARCHAR(255) NOT NULL PRIMARY KEY,
    token    BIGINT       NOT NULL
);
