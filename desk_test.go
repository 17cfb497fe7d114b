package transcript_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/desknames"
)

func TestValidateDesk(t *testing.T) {
	for what, name := range desknames.Refused {
		if err := transcript.ValidateDesk(name); !errors.Is(err, transcript.ErrInvalidDesk) {
			t.Errorf("ValidateDesk(%q) (%s) = %v, want an error matching ErrInvalidDesk", name, what, err)
		}
	}
	for what, name := range desknames.Accepted {
		if err := transcript.ValidateDesk(name); err != nil {
			t.Errorf("ValidateDesk(%q) (%s) = %v, want nil", name, what, err)
		}
	}
}

func TestValidateDeskSaysWhatIsWrong(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"", "invalid desk name: empty"},
		{"..", `invalid desk name: ".." names a directory in a path, not a desk`},
		{"a b", `invalid desk name: character ' ' at byte 1 is not a letter, digit, '.', '_' or '-'`},
		{"a\xffb", "invalid desk name: not valid UTF-8 at byte 1"},
		{"a\ufffdb", `invalid desk name: character '�' at byte 1 is not a letter, digit, '.', '_' or '-'`},
	} {
		if err := transcript.ValidateDesk(c.name); err == nil || err.Error() != c.want {
			t.Errorf("ValidateDesk(%q) = %v, want %q", c.name, err, c.want)
		}
	}
}

func FuzzValidateDesk(f *testing.F) {
	for _, name := range desknames.Accepted {
		f.Add(name)
	}
	for _, name := range desknames.Refused {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := transcript.ValidateDesk(name)
		if err != nil && !errors.Is(err, transcript.ErrInvalidDesk) {
			t.Fatalf("ValidateDesk(%q) = %v, which does not match ErrInvalidDesk", name, err)
		}
		if err == nil && (name == "" || name == "." || name == ".." || len([]rune(name)) > transcript.MaxDeskLen || strings.ContainsAny(name, "/ %\\?#\x00")) {
			t.Fatalf("ValidateDesk(%q) accepted a name that cannot be one path segment", name)
		}
	})
}
