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
// the first ":" of a URL's user info, the part before its last "@" (after "//", or from the
// start when db has none), whether or not the URL parses ("postgres://app:xxxxx@db/chat",
// mistyped "postgres//app:xxxxx@db/chat", without its scheme "app:xxxxx@db/chat"); the
// value of a query parameter whose name holds "password", however many "?" come before it
// (pgx and libpq read password and sslpassword there: "?password=xxxxx"); and the value of
// a key/value pair whose key holds "password" ("host=/tmp password=xxxxx"). It masks more
// than a password sooner than less. Every message that names a --db prints it through this
// function.
func PrintableDSN(db string) string {
	db = passwordPair.ReplaceAllString(db, "${1}"+maskedPassword)
	db = queryParam.ReplaceAllStringFunc(db, func(p string) string {
		name, _, _ := strings.Cut(p[1:], "=")
		if unescaped, err := url.QueryUnescape(name); err == nil {
			name = unescaped
		}
		if !strings.Contains(strings.ToLower(name), "password") {
			return p
		}
		return p[:1] + p[1:strings.Index(p, "=")+1] + maskedPassword
	})
	at := strings.LastIndex(db, "@")
	if at < 0 {
		return db
	}
	// The user info begins after "//", else after the scheme and its slashes, else (no ":"
	// there: no scheme was typed) at the start.
	start := 0
	if i := strings.Index(db[:at], "//"); i >= 0 {
		start = i + 2
	} else if scheme := urlScheme.FindString(db[:at]); scheme != "" {
		start = len(scheme) + len(db[len(scheme):at]) - len(strings.TrimLeft(db[len(scheme):at], "/"))
		if !strings.Contains(db[start:at], ":") {
			start = 0
		}
	}
	if colon := strings.Index(db[start:at], ":"); colon >= 0 {
		db = db[:start+colon+1] + maskedPassword + db[at:]
	}
	return db
}

// urlScheme matches a URL's scheme and its colon, as RFC 3986 spells a scheme.
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// passwordPair matches a key/value pair whose key holds "password", as libpq reads one: its
// key, "=" and white space before the value (group 1), and the value, single-quoted (with
// backslash escapes, to the end when the quote is not closed) or up to white space.
var passwordPair = regexp.MustCompile(`(?i)((?:^|\s)[a-z_]*password\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|\S*)`)

// queryParam matches a query parameter: the separator before it, its name, "=" and its
// value, up to the next separator.
var queryParam = regexp.MustCompile(`[?&][^=&?#]*=[^&?#]*`)
