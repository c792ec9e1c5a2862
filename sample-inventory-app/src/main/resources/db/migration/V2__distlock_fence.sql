-- The fence table of distlock's JdbcFencing, as distlock-core ships it for PostgreSQL
-- (io/distlock/fencing/schema-postgresql.sql): one row per fenced resource with the newest
-- fencing token written to it. FencedReservation raises the row 'stock:<product id>'.
CREATE TABLE IF NOT EXISTS distlock_fence (
    resource VARCHAR(255) NOT NULL PRIMARY KEY,
    token    BIGINT       NOT NULL
);
