// Package readable answers, for the module's service, MCP tools, posting, digests and
// command, whether one row of a log exists and a viewer may read it. Its one answer for a
// row that does not exist and for one the viewer may not read is what lets a caller refuse
// a parent, a thread or a correction's target without telling an outsider that the row is
// there: the service's 404, the MCP tools' errors and the command's refusals all come from
// [Row]. [Head] is a log's newest row, which a caller names when it refuses a row that is
// not there.
package readable
