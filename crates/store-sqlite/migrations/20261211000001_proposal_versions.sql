-- What an edit or delete proposal was made against: the memory's sentence and tags then,
-- so accepting it after the person changed the memory is refused until they have seen both.
ALTER TABLE proposals ADD COLUMN against_content TEXT;
ALTER TABLE proposals ADD COLUMN against_tags TEXT CHECK (against_tags IS NULL OR json_type(against_tags) = 'array');
