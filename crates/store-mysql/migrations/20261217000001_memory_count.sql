-- How many memories each bank holds (src/counts.rs), a few rows per bank whose sum is
-- the count: a save's quota check reads them instead of counting the bank's rows.
-- Counted here from the rows already saved; every write path keeps it in step after.
-- Idempotent: an adopted database replays it and keeps the counts it has.
CREATE TABLE IF NOT EXISTS memory_count (
    user_id VARCHAR(64)          NOT NULL,
    scope   ENUM('user', 'org')  NOT NULL,
    shard   TINYINT UNSIGNED     NOT NULL,
    n       BIGINT               NOT NULL,
    PRIMARY KEY (user_id, scope, shard)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
INSERT INTO memory_count (user_id, scope, shard, n)
SELECT user_id, scope, 0, COUNT(*) FROM memory GROUP BY user_id, scope
ON DUPLICATE KEY UPDATE n = memory_count.n;
