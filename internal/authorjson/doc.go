// Package authorjson holds the JSON object an author is written as, and its one rule on
// keys, for the two decoders that read it: transcript.Author's UnmarshalJSON and the
// importer's line decoder, which decodes a whole line in one pass with unknown keys refused
// and so cannot call Author.UnmarshalJSON for its authors.
package authorjson
