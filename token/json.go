package token

import (
	"encoding/json"
	"time"

	"github.com/sharedesk/transcript"
)

// tokenJSON is a Token's JSON form: what a person may see of it.
type tokenJSON struct {
	ID          string            `json:"id"`
	Desk        string            `json:"desk"`
	Participant transcript.Author `json:"participant"`
	Created     time.Time         `json:"created"`
	Revoked     *time.Time        `json:"revoked"` // null while it is not
}

// MarshalJSON writes t as a token list shows it (token list --format json):
// {"id","desk","participant","created","revoked"}, the participant as transcript.Author
// writes it, the times in UTC and revoked null while it is not. It never writes the Hash:
// the ID names the token, and the hash is how a Store finds it, shown nowhere. There is no
// UnmarshalJSON: a Token is made by New
// and kept by a Store, never read back from its JSON.
func (t Token) MarshalJSON() ([]byte, error) {
	j := tokenJSON{ID: t.ID, Desk: t.Desk, Participant: t.Participant, Created: t.Created.UTC()}
	if t.IsRevoked() {
		r := t.Revoked.UTC()
		j.Revoked = &r
	}
	return json.Marshal(j)
}
