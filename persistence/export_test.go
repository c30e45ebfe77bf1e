package persistence

// MigrateTo applies the migrations up to version, for tests that start from an older schema.
var MigrateTo = migrateTo
