package server

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
)

// strictQuery answers 400 (invalid-request) for a request whose query string the service
// would not read as it was sent, as strictly as it reads bodies: a parameter given twice,
// which net/http and huma would read as its first value alone; a name or value that is not
// UTF-8 once percent-decoded, which a search would read as other text; a query that is no
// application/x-www-form-urlencoded text (a bad percent-escape, a semicolon), whose pairs
// net/http would drop. Every route passes through it, operations and the routes that are
// none alike, before any of them reads a parameter. Its problems quote a parameter's name
// only when it is one of names.
func strictQuery(names locationNames, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := queryProblem(names, r.URL.RawQuery); p != nil {
			writeProblem(w, p, nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// The messages of queryProblem's errors.
const (
	msgDuplicateParameter = "duplicate parameter"
	msgParameterNotUTF8   = "not UTF-8 text"
	msgNotAQuery          = "not a query string (name=value pairs joined by &, percent-encoded)"
)

// queryProblem is the problem with the query string raw, or nil: its first parameter
// given twice, or whose name or value is not UTF-8, or the first text that is no query
// string. Its error's location names the parameter as problems do (queryLocation).
func queryProblem(names locationNames, raw string) *huma.ErrorModel {
	seen := make(map[string]bool)
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil || strings.Contains(rawName, ";") {
			return queryError("query", msgNotAQuery)
		}
		if !utf8.ValidString(name) {
			return queryError("query.*", msgParameterNotUTF8)
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil || strings.Contains(rawValue, ";") {
			return queryError(queryLocation(names, name), msgNotAQuery)
		}
		if !utf8.ValidString(value) {
			return queryError(queryLocation(names, name), msgParameterNotUTF8)
		}
		if seen[name] {
			return queryError(queryLocation(names, name), msgDuplicateParameter)
		}
		seen[name] = true
	}
	return nil
}

// queryLocation is the location of query parameter name in a problem: "query.q" for a
// parameter of the service (one of names), "query.*" for any other, which is never quoted
// (locationNames.safeLocation).
func queryLocation(names locationNames, name string) string {
	if strings.ContainsAny(name, ".[") {
		return "query.*"
	}
	return names.safeLocation("query." + name)
}

// queryError is the invalid-request problem of msg at loc, as cleanProblem words the
// errors huma finds.
func queryError(loc, msg string) *huma.ErrorModel {
	p := kindInvalidRequest.problem(msg + " at " + loc)
	p.Errors = []*huma.ErrorDetail{{Message: msg, Location: loc}}
	return p
}
