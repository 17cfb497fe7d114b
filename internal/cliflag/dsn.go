package cliflag

import (
	"net/url"
	"regexp"
	"strings"
)

// maskedPassword is what PrintableDSN prints in place of a password.
const maskedPassword = "xxxxx"

// PrintableDSN returns db, a database as --db or TRANSCRIPT_DB names it (a SQLite file's
// path, a postgres:// URL, or a key/value connection string given by mistake), as a message
// may print it: every password in it is xxxxx, the rest as given. A password is what follows
// the user's name in a URL's user info, whether or not the URL parses
// ("postgres://app:xxxxx@db/chat", mistyped "postgres:/app:xxxxx@db/chat"); the value of a
// URL's query parameter whose name holds "password" (pgx and libpq read password and
// sslpassword there: "?password=xxxxx"); and the value of a key/value pair whose key holds
// "password" ("host=/tmp password=xxxxx"). Every message that names a --db prints it
// through this function.
func PrintableDSN(db string) string {
	scheme := urlScheme.FindString(db)
	if scheme == "" {
		return passwordPair.ReplaceAllString(db, "${1}"+maskedPassword)
	}
	rest := db[len(scheme):]
	slashes := len(rest) - len(strings.TrimLeft(rest, "/"))
	head, rest := scheme+rest[:slashes], rest[slashes:]
	// The user info ends at the last "@", as url.Parse reads it; the password, at its first
	// ":". A password with a "/" or a "?" unescaped is masked all the same.
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		if colon := strings.Index(rest[:at], ":"); colon >= 0 {
			head += rest[:colon+1] + maskedPassword
			rest = rest[at:]
		}
	}
	if q := strings.Index(rest, "?"); q >= 0 {
		rest = rest[:q+1] + maskedQuery(rest[q+1:])
	}
	return head + rest
}

// urlScheme matches a URL's scheme and its colon, as RFC 3986 spells a scheme.
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// passwordPair matches a key/value pair whose key holds "password", as libpq reads one: its
// key, "=" and white space before the value (group 1), and the value, single-quoted (with
// backslash escapes, to the end when the quote is not closed) or up to white space.
var passwordPair = regexp.MustCompile(`(?i)((?:^|\s)[a-z_]*password\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|\S*)`)

// maskedQuery returns query, a URL's query string, with the value of each parameter whose
// name holds "password" masked; the parameters stay in their order, as given.
func maskedQuery(query string) string {
	params := strings.Split(query, "&")
	for i, p := range params {
		raw, _, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(raw)
		if err != nil {
			name = raw
		}
		if hasValue && strings.Contains(strings.ToLower(name), "password") {
			params[i] = raw + "=" + maskedPassword
		}
	}
	return strings.Join(params, "&")
}
