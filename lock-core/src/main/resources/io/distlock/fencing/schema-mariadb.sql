-- The fence table of io.distlock.fencing.JdbcFencing: one row per fenced resource, holding the
-- newest fencing token written to it. Usable as it is from Flyway or Liquibase. InnoDB (the
-- default engine): the fence row's lock must last until the transaction ends.
CREATE TABLE IF NOT EXISTS distlock_fence (
    resource VARCHAR(255) NOT NULL PRIMARY KEY,
    token    BIGINT       NOT NULL
);
