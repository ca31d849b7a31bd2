-- A bank's size from an index alone. Every save behind `serve` counts the person's
-- memories for their quota (`--max-memories-per-user`, 10 000 by default); without
-- `scope` in an index, that count read each of their rows from the table: 4.5 ms a
-- save at 10⁴ memories (BENCHMARKS.md, "A bank's size for the quota").
CREATE INDEX memory_owner_scope ON memory (user_id, scope);
