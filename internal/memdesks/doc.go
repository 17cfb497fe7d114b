// Package memdesks keeps desks in memory, one memlog.Log each, for the tests of packages
// that take a store of desks (deskmcp's, the server's): a test's store embeds a Desks and
// adds what else it must hold (tokens, books).
package memdesks
