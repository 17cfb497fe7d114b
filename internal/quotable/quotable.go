package quotable

import (
	"strings"

	"github.com/sharedesk/transcript/token"
)

// NotQuoted is what an error says in place of something a client sent that it does not
// quote back (Name or Text refuses it).
const NotQuoted = "not quoted: it could be a secret"

// MaxName is the longest name Name lets an error quote: shorter than any token secret.
const MaxName = 32

// Name reports whether a name a client sent may be quoted back: 1 to MaxName ASCII letters,
// digits, '_' and '-', beginning with a letter, and not the beginning of a token secret
// (token.SecretPrefix, in any case).
func Name(name string) bool {
	if name == "" || len(name) > MaxName || !isASCIILetter(name[0]) ||
		strings.HasPrefix(strings.ToLower(name), token.SecretPrefix) {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !isASCIILetter(c) && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// Text reports whether a value a user gave (a desk's name, a database's path) may be quoted
// back in an error: unless it holds the beginning of a token secret (token.SecretPrefix, in
// any case), a secret given where the value should be.
func Text(s string) bool { return !strings.Contains(strings.ToLower(s), token.SecretPrefix) }
