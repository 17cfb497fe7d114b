// Package cut is the one place an answer is cut to a budget. Every bounded answer of the
// module (a walk's Project and ReadUnseen, a sharing prefix, a search, a live stream's part,
// an MCP read's tokens) keeps the items that fit with [Within], so that a budget cannot be
// written two ways: the first item always goes, however large, so a reader bounded by the
// budget always moves on, and no item past the first that does not fit is measured.
package cut
