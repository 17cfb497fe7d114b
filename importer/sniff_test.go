package importer

import "testing"

// FuzzIsDCEStart: no input makes the check panic, and a line import reads is never taken
// for the start of a DiscordChatExporter export.
func FuzzIsDCEStart(f *testing.F) {
	f.Add([]byte(`{"id":"1","author":{"type":"operator"},"content":"hi"}`))
	f.Add([]byte(`{"guild":{"id":"1"},"channel":{"id":"2"},"messages":[]}`))
	f.Add([]byte(`{"guild":{"id":"1"},"chan`))
	f.Add([]byte(`{"channel":"x","guild":{},"channel":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dce := isDCEStart(data)
		if _, _, err := decodeLine(data); err == nil && dce {
			t.Errorf("%q is a line, and taken for a DiscordChatExporter export", data)
		}
	})
}
