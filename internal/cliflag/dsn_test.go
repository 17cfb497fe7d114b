package cliflag_test

import (
	"testing"

	"github.com/sharedesk/transcript/internal/cliflag"
)

// TestPrintableDSNMasksEveryPassword: a password in a URL's user info, parsed or not, in a
// URL's query and in a key/value connection string is xxxxx; the rest, and a name that
// holds no password, is as given.
func TestPrintableDSNMasksEveryPassword(t *testing.T) {
	for db, want := range map[string]string{
		"transcript.db":                                                "transcript.db",
		"my desks/it's.db":                                             "my desks/it's.db",
		"postgres://app@db.example/chat":                               "postgres://app@db.example/chat",
		"postgres://app:s3cretPW@db.example/chat":                      "postgres://app:xxxxx@db.example/chat",
		"postgres://app:s3cretPW@127.0.0.1:bad/chat":                   "postgres://app:xxxxx@127.0.0.1:bad/chat",
		"postgres://app:s3c/ret@PW@db/chat":                            "postgres://app:xxxxx@db/chat",
		"postgres:/app:s3cretPW@h/chat":                                "postgres:/app:xxxxx@h/chat",
		"postgresql:app:s3cretPW@h/chat":                               "postgresql:app:xxxxx@h/chat",
		"postgres://app@db/chat?password=s3cretPW":                     "postgres://app@db/chat?password=xxxxx",
		"postgres://app@db/chat?sslmode=disable&PassWord=s3cretPW&x=1": "postgres://app@db/chat?sslmode=disable&PassWord=xxxxx&x=1",
		"postgres://app@/chat?host=/run/pg&pass%77ord=s3cretPW":        "postgres://app@/chat?host=/run/pg&pass%77ord=xxxxx",
		"postgres://db/chat?sslpassword=s3cretPW":                      "postgres://db/chat?sslpassword=xxxxx",
		"app:s3cretPW@db.example.com/chat":                             "app:xxxxx@db.example.com/chat",
		"postgres//app:s3cretPW@db/chat":                               "postgres//app:xxxxx@db/chat",
		"postgres://db/chat?sslmode=disable?password=s3cretPW":         "postgres://db/chat?sslmode=disable?password=xxxxx",
		"postgres://app@db/chat?password=ab?s3cretPW":                  "postgres://app@db/chat?password=xxxxx",
		"postgres://app@db/chat?sslmode=disable&password=ab#s3cretPW":  "postgres://app@db/chat?sslmode=disable&password=xxxxx",
		"postgres:/app:pw//s3cretPW@db/chat":                           "postgres:/app:xxxxx@db/chat",
		"app:pw//s3cretPW@db/chat":                                     "app:xxxxx@db/chat",
		"postgres://app:pw//s3cretPW@db/chat":                          "postgres://app:xxxxx@db/chat",
		`host=/tmp password=ab\ s3cretPW dbname=x`:                     "host=/tmp password=xxxxx dbname=x",
		`dbname='x'password=s3cretPW`:                                  "dbname='x'password=xxxxx",
		"host=/tmp dbname=x password=s3cretPW":                         "host=/tmp dbname=x password=xxxxx",
		"password = 's3cret PW' dbname=x":                              "password = xxxxx dbname=x",
		`dbname=x password='s3c\'ret PW`:                               "dbname=x password=xxxxx",
	} {
		if got := cliflag.PrintableDSN(db); got != want {
			t.Errorf("PrintableDSN(%q) = %q, want %q", db, got, want)
		}
	}
}
