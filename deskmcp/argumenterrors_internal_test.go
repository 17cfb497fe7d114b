package deskmcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNumberOutOfRangeNamed: arguments that are a JSON object in valid UTF-8, with a
// number no float64 holds, are refused with an error that says what is wrong (the number,
// or the argument), not that the text is no UTF-8.
func TestNumberOutOfRangeNamed(t *testing.T) {
	s, err := schemas()
	if err != nil {
		t.Fatal(err)
	}
	var in SearchDeskArgs
	err = checkArguments(json.RawMessage(`{"query":"deploy","limit":1e400}`), s.searchArgs, &in)
	if err == nil || strings.Contains(err.Error(), "UTF-8") || !strings.Contains(err.Error(), "limit") {
		t.Errorf("limit 1e400: %v; want an error naming limit, not one about UTF-8", err)
	}
}

// TestArgumentErrorsQuoteNoValue: an argument name the tool does not have is not
// echoed (it could be a secret pasted in the wrong place), as the service's problems do not.
func TestArgumentErrorsQuoteNoValue(t *testing.T) {
	s, err := schemas()
	if err != nil {
		t.Fatal(err)
	}
	const secret = "trs_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
	for _, args := range []string{`{"query":"deploy","` + secret + `":1}`, `{"query":"deploy","limit":"` + secret + `"}`, `{"query":{"` + secret + `":1}}`} {
		var in SearchDeskArgs
		err := checkArguments(json.RawMessage(args), s.searchArgs, &in)
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %v; want a refusal that does not quote the secret", args, err)
		}
	}
}
