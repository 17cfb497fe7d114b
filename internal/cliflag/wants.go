package cliflag

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/sharedesk/transcript/internal/quotable"
)

// wants returns what f takes, in words ("a whole number from 0"), and true, when f's value
// is one of the flag package's numbers, durations or booleans (a flag.Getter of that type),
// whose Set's refusal says only "parse error" or "value out of range"; else false.
func wants(f *flag.Flag) (string, bool) {
	getter, ok := f.Value.(flag.Getter)
	if !ok {
		return "", false
	}
	switch getter.Get().(type) {
	case bool:
		return "true or false", true
	case int, int64:
		return "a whole number", true
	case uint, uint64:
		return "a whole number from 0", true
	case float64:
		return "a number, such as 10, 0.5 or inf", true
	case time.Duration:
		return "a duration, such as 30s, 5m or 1h30m", true
	}
	return "", false
}

// wantError is the error of value, refused by f, which wants want: it quotes value when
// quotable.Name allows it (a number names nothing), and ends with f's usage, which says what
// the number is: invalid value "abc" for flag -thread: want a whole number from 0; -thread:
// show the thread rooted at this seq instead of the channel.
func wantError(f *flag.Flag, value, want string) error {
	given := fmt.Sprintf("invalid value %q for flag -%s", value, f.Name)
	if !quotable.Name(value) && !isNumber(value) {
		given = fmt.Sprintf("invalid value for flag -%s (%s)", f.Name, NotQuoted)
	}
	if _, usage := flag.UnquoteUsage(f); usage != "" {
		return fmt.Errorf("%s: want %s; -%s: %s", given, want, f.Name, usage)
	}
	return fmt.Errorf("%s: want %s", given, want)
}

// isNumber reports whether s could be a number a flag takes: up to quotable.MaxName ASCII
// letters, digits, '+', '-' and '.', the first a digit, a sign or a point ("-1", "2.5",
// "1e400", "90s"). It names nothing, and an error may quote it back.
func isNumber(s string) bool {
	if s == "" || len(s) > quotable.MaxName || !strings.ContainsRune("0123456789+-.", rune(s[0])) {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || strings.ContainsRune("+-.", r)) {
			return false
		}
	}
	return true
}
