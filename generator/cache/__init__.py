"""The one cache: a SQLite database in the cache folder, and the stores that keep a build's work in it."""
