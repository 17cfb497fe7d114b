package sharing

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/atomicfile"
)

// ReadStateFile reads the State saved in the file at path (JSON, as WriteStateFile writes
// it). A file that does not exist is a viewer of conv that has seen nothing:
// Initialized(conv, 0). A file whose content is no State is a *StateError, saying in the
// JSON's terms what is wrong (JSON that does not parse among them); a file that cannot be
// read is the error of os.ReadFile.
func ReadStateFile(path string, conv transcript.Conversation) (State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Initialized(conv, 0), nil
	}
	if err != nil {
		return State{}, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		if _, ok := errors.AsType[*StateError](err); !ok { // JSON that does not parse, which UnmarshalJSON never sees
			err = stateJSONError(err)
		}
		return State{}, err
	}
	return s, nil
}

// WriteStateFile replaces the file at path with s, as indented JSON and a line break,
// atomically (a temporary file beside it, renamed over it): a crash leaves either the old
// state or the new, never a mix.
func WriteStateFile(path string, s State) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'))
}
