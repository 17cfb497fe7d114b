package server_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// TestAsideSizeUnseen: what a participant is answered does not depend on the size of the
// asides it may not read. Two desks differ only in the size of five asides between the
// operator and triage (a few bytes, or enough that a store ends its pages early); coder's
// view and thread list of both are the same, read counts included.
func TestAsideSizeUnseen(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		e := newEnv(t, st, server.Options{Rate: rate.Inf})
		answers := map[string][2]any{}
		for i, size := range []int{10, transcript.MaxContent - 1} {
			desk := []string{"small", "large"}[i]
			op, coderTok := e.token(desk, operator), e.token(desk, coder)
			post := func(body map[string]any) transcript.Message {
				return decode[transcript.Message](t, e.do("POST", "/v1/desks/"+desk+"/messages", op, body), 201)
			}
			root := post(map[string]any{"content": "root"})
			for j := range 40 {
				body := map[string]any{"content": "public"}
				if j%2 == 1 {
					body["parent"] = root.Seq
				}
				post(body)
				if j%8 == 3 {
					post(map[string]any{"content": strings.Repeat("a", size), "audience": []string{"agent:triage"}})
				}
			}
			view := decode[transcript.Projection](t, e.do("GET", "/v1/desks/"+desk+"/view?window=60", coderTok, nil), 200)
			threads := decode[transcript.ThreadList](t, e.do("GET", "/v1/desks/"+desk+"/threads", coderTok, nil), 200)
			for _, k := range []string{"view", "threads"} {
				a := answers[k]
				a[i] = map[string]any{"view": view, "threads": threads}[k]
				answers[k] = a
			}
		}
		ignoreAt := cmpopts.IgnoreFields(transcript.Message{}, "At")
		for k, a := range answers {
			if diff := cmp.Diff(a[0], a[1], ignoreAt); diff != "" {
				t.Errorf("coder's %s differs with the asides' size (-small +large):\n%s", k, diff)
			}
		}
	})
}
