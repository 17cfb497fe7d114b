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
	db = maskQueryPasswords(db)
	at := strings.LastIndex(db, "@")
	if at < 0 {
		return db
	}
	// The user info begins after the scheme and "//" (or its typo, "postgres//"), else
	// after the scheme and the slashes it has, else (no ":" there: no scheme was typed) at
	// the start. A "//" further on may be the password's.
	start := 0
	if prefix := authorityPrefix.FindString(db[:at]); prefix != "" {
		start = len(prefix)
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

// maskQueryPasswords returns db with the value of every query parameter whose name holds
// "password", once unescaped, masked: a name begins after a "?" or an "&", and its value
// runs to the next "&", as pgx reads it ("?" and "#" included).
func maskQueryPasswords(db string) string {
	names := queryName.FindAllStringSubmatchIndex(db, -1)
	for i := len(names) - 1; i >= 0; i-- {
		name := db[names[i][2]:names[i][3]]
		if unescaped, err := url.QueryUnescape(name); err == nil {
			name = unescaped
		}
		if !strings.Contains(strings.ToLower(name), "password") {
			continue
		}
		valueStart := names[i][1]
		valueEnd := len(db)
		if amp := strings.IndexByte(db[valueStart:], '&'); amp >= 0 {
			valueEnd = valueStart + amp
		}
		db = db[:valueStart] + maskedPassword + db[valueEnd:]
	}
	return db
}

// queryName matches a query parameter's separator, its name (group 1) and "=".
var queryName = regexp.MustCompile(`[?&]([^=&?#]*)=`)

// authorityPrefix matches a URL's scheme and the "//" before its authority, or the scheme
// typed without its colon ("postgres//"), and any more slashes.
var authorityPrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:?//+`)

// urlScheme matches a URL's scheme and its colon, as RFC 3986 spells a scheme.
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// passwordPair matches a key/value pair whose key holds "password", as libpq reads one: its
// key (after the start, white space or a closing quote), "=" and white space before the
// value (group 1), and the value, single-quoted (with backslash escapes, to the end when the
// quote is not closed) or up to white space that no backslash escapes.
var passwordPair = regexp.MustCompile(`(?i)((?:^|[\s'])[a-z_]*password\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|(?:\\.|[^\s\\])*\\?)`)
