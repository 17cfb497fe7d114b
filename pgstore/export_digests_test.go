package pgstore

// The digests' statements, for the tests of their plans.
const (
	DigestSQL    = digestSQL
	PutDigestSQL = putDigestSQL
)
