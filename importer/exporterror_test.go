package importer

import (
	"strings"
	"testing"
)

// checkExportError checks err, a chat export reader's refusal: it begins with what (the
// export it names, "slack export DIR"), says each of want and none of not, and quotes none
// of contents, the texts of the export's messages.
func checkExportError(t *testing.T, err error, what string, want, not, contents []string) {
	t.Helper()
	t.Log(err)
	msg := err.Error()
	if !strings.HasPrefix(msg, what+": ") {
		t.Errorf("error %q does not name the export as %q", msg, what)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
	for _, n := range not {
		if strings.Contains(msg, n) {
			t.Errorf("error %q says %q", msg, n)
		}
	}
	for _, c := range contents {
		if strings.Contains(msg, c) {
			t.Errorf("error %q quotes content %q", msg, c)
		}
	}
}
