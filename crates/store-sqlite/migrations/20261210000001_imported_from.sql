-- An import confirms nothing: an imported memory says confirmed_via 'import', and what
-- its file claimed about how it was confirmed (confirmedVia, proposedBy) is kept beside
-- it as a JSON object, for each imported revision too. An edit moves the memory's
-- claim to the revision it makes.
ALTER TABLE memory ADD COLUMN imported_from TEXT CHECK (imported_from IS NULL OR json_type(imported_from) = 'object');
ALTER TABLE memory_revision ADD COLUMN imported_from TEXT CHECK (imported_from IS NULL OR json_type(imported_from) = 'object');
