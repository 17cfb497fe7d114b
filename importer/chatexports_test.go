package importer

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/exportfixture"
)

// This file tests how Slack and Discord exports follow one another into a desk: a later
// export's replies to threads an earlier one began, and mentions and notices written as
// people read them.

const (
	slackReplyOnly   = "testdata/slack/reply-only"   // 2024-05-03 alone: a reply in the thread of slackRoot
	slackMentions    = "testdata/slack/mentions"     // a day of mentions, links and @here
	discordReplyOnly = "testdata/discord/reply-only" // a later day: a reply to discordReplied
	discordReplied   = "1235154748047360014"         // the message of the fixture it replies to
	slackReply       = "1714726800.000100"           // the reply slackReplyOnly holds
	discordReply     = "1235500000000000020"         // the reply discordReplyOnly holds
	slackMentionsDay = "general/2024-05-04.json"     // slackMentions' day file
)

// TestLaterExportRepliesToTheDesk: an export that holds only a reply in a thread an earlier
// export began imports as a reply to the desk's row, found by its key; into a desk without
// that row, it is refused, naming the reply and its parent and what to do.
func TestLaterExportRepliesToTheDesk(t *testing.T) {
	for _, tt := range []struct {
		name             string
		first, second    Source
		reply, parent    string
		replyWhere, says string
	}{
		{"slack", Slack(slackFixture, "general"), Slack(slackReplyOnly, "general"), slackReply, slackRoot,
			`"general/2024-05-03.json": message 1714726800.000100`, "a reply in the thread of 1714554120.000300"},
		{"discord", Discord(discordFixture), Discord(discordReplyOnly), discordReply, discordReplied,
			`": message 1235500000000000020`, "a reply to message 1235154748047360014"},
	} {
		for _, sc := range correctionStores {
			t.Run(tt.name+"/"+sc.name, func(t *testing.T) {
				ctx := t.Context()
				st := sc.open(t)
				if _, err := Import(ctx, st, "main", tt.first); err != nil {
					t.Fatal(err)
				}
				counts, err := Import(ctx, st, "main", tt.second)
				if want := (Counts{Added: 1}); err != nil || counts != want {
					t.Fatalf("the later export: %+v, %v; want %+v", counts, err, want)
				}
				rows := readDesk(t, st, "main")
				reply, parent := findKey(t, rows, tt.reply), findKey(t, rows, tt.parent)
				if reply.Parent != parent.Seq {
					t.Errorf("the reply's parent is row %d, want %d (key %s)", reply.Parent, parent.Seq, tt.parent)
				}
				counts, err = Import(ctx, st, "main", tt.second)
				if want := (Counts{Present: 1}); err != nil || counts != want {
					t.Errorf("the later export again: %+v, %v; want %+v", counts, err, want)
				}

				empty := sc.open(t)
				_, err = Import(ctx, empty, "main", tt.second)
				t.Log(err)
				var rerr *RowsError
				if !errors.As(err, &rerr) {
					t.Fatalf("into an empty desk: %v; want a *RowsError", err)
				}
				for _, want := range []string{tt.replyWhere, tt.says, `neither the export nor desk "main"`, "import first an export that holds " + tt.parent} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				if strings.Contains(err.Error(), "Shipped") || strings.Contains(err.Error(), "Production is fine") {
					t.Errorf("error %q quotes the message", err)
				}
				if n := len(readDesk(t, empty, "main")); n != 0 {
					t.Errorf("a refused import wrote %d rows", n)
				}
			})
		}
	}
}

// TestDiscordThreadStartedInTheDesk: a thread's file whose start an earlier export held,
// and the export being read lacks, imports as replies to the desk's row.
func TestDiscordThreadStartedInTheDesk(t *testing.T) {
	ctx := t.Context()
	st := newMemStore()
	channelOnly := exportfixture.Copy(t, discordFixture)
	exportfixture.Remove(t, channelOnly, discordThread)
	if _, err := Import(ctx, st, "main", Discord(channelOnly)); err != nil {
		t.Fatal(err)
	}
	threadOnly := exportfixture.Copy(t, discordFixture)
	editDiscordFile(t, threadOnly, discordChannel, func(x map[string]any) { dropMessage(x, discordStart) })
	counts, err := Import(ctx, st, "main", Discord(threadOnly))
	if err != nil || counts.Added == 0 {
		t.Fatalf("the thread's export: %+v, %v", counts, err)
	}
	rows := readDesk(t, st, "main")
	start := findKey(t, rows, discordStart)
	if m := findKey(t, rows, "1235154748047360009"); m.Parent != start.Seq {
		t.Errorf("a message of the thread replies to row %d, want %d, its start", m.Parent, start.Seq)
	}

	_, err = Import(ctx, newMemStore(), "main", Discord(threadOnly))
	if err == nil || !strings.Contains(err.Error(), discordStart) || !strings.Contains(err.Error(), `neither the export nor desk "main"`) {
		t.Errorf("the thread's export into an empty desk: %v; want it to name the thread's start", err)
	}
}

// TestDiscordReplyToDeletedMessage: Discord keeps a reply's reference when the message it
// replied to is deleted. In an export of the channel's whole history, such a reply imports
// where it stands (a message of the channel, or of its thread); in an export of a date
// range, whose missing parent may lie before the range, it fails the import, naming both.
func TestDiscordReplyToDeletedMessage(t *testing.T) {
	const (
		channelReply = "1235154496389120013" // replies to 1235153993072640012, of the channel
		threadReply  = "1235155377192960203" // replies to 1235154748047360009, of the thread
	)
	deleted := exportfixture.Copy(t, discordFixture)
	editDiscordFile(t, deleted, discordChannel, func(x map[string]any) { dropMessage(x, "1235153993072640012") })
	editDiscordFile(t, deleted, discordThread, func(x map[string]any) { dropMessage(x, "1235154748047360009") })
	st := newMemStore()
	counts, err := Import(t.Context(), st, "main", Discord(deleted))
	if err != nil {
		t.Fatalf("the whole channel's export: %+v, %v", counts, err)
	}
	rows := readDesk(t, st, "main")
	if m := findKey(t, rows, channelReply); m.Parent != 0 {
		t.Errorf("the reply to a deleted message of the channel replies to row %d, want a message of the channel", m.Parent)
	}
	if m, start := findKey(t, rows, threadReply), findKey(t, rows, discordStart); m.Parent != start.Seq {
		t.Errorf("the reply to a deleted message of the thread replies to row %d, want %d, the thread's start", m.Parent, start.Seq)
	}
	again, err := Import(t.Context(), st, "main", Discord(deleted))
	if err != nil || again.Added != 0 {
		t.Errorf("the same export again: %+v, %v; want nothing added", again, err)
	}

	for _, file := range []string{discordChannel, discordThread} {
		editDiscordFile(t, deleted, file, func(x map[string]any) {
			x["dateRange"] = map[string]any{"after": "2024-05-01T00:00:00+00:00", "before": nil}
		})
	}
	_, err = Import(t.Context(), newMemStore(), "main", Discord(deleted))
	if err == nil || !strings.Contains(err.Error(), channelReply) || !strings.Contains(err.Error(), "a reply to message 1235153993072640012, which is in neither the export nor desk") {
		t.Errorf("an export of a date range: %v; want it to name the reply and the message it replied to", err)
	}
}

// TestSlackMentions: mentions, channels, links and broadcasts read as Slack shows them.
func TestSlackMentions(t *testing.T) {
	rows, _, err := readSlackExport(slackMentions, "general")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"@Ana can you check #random? Notes are in #general.",
		"@here the plan: release plan (https://example.com/plan?a=1&b=2) and https://status.example.com",
		"@channel ping @release-team, mail ana@example.com, see http://example.com",
		"@gone said 1 < 2 && @Cho Min-jun agreed",
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Message.Content)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}

func TestSlackText(t *testing.T) {
	users := slackUsers{"U1": {ID: "U1", Name: "ana", Profile: slackProfile{DisplayName: "Ana"}}}
	channels := map[string]string{"C1": "general"}
	for _, tt := range []struct{ in, want string }{
		{"plain &amp; simple &lt;3", "plain & simple <3"},
		{"<@U1>", "@Ana"},
		{"<@U1|old>", "@Ana"},
		{"<@U9|someone>", "@someone"},
		{"<@U9>", "@U9"},
		{"<#C1>", "#general"},
		{"<#C1|general>", "#general"},
		{"<#C9>", "#C9"},
		{"<!here>", "@here"},
		{"<!here|here>", "@here"},
		{"<!channel> <!everyone>", "@channel @everyone"},
		{"<!subteam^S1|@ops>", "@ops"},
		{"<!subteam^S1>", "@S1"},
		{"<!date^1392734382^{date_pretty}|Feb 18, 2014>", "Feb 18, 2014"},
		{"<https://x.io/a?b=1&amp;c=2|the &lt;plan&gt;>", "the <plan> (https://x.io/a?b=1&c=2)"},
		{"<https://x.io>", "https://x.io"},
		{"<https://x.io|x.io>", "https://x.io"},
		{"<mailto:a@x.io|a@x.io>", "a@x.io"},
		{"<mailto:a@x.io|Ana>", "Ana (mailto:a@x.io)"},
		{"1 < 2 without its end", "1 < 2 without its end"},
		{"a <@U1> and a < dangling", "a @Ana and a < dangling"},
	} {
		if got, _ := slackText(tt.in, users, channels); got != tt.want {
			t.Errorf("slackText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSlackDeskHoldsMentionsOtherwise: a desk whose rows hold a message's mentions as
// Slack wrote them (as imports did before they wrote them out), or with other labels (a
// user renamed since), holds that message: the export imports into it as nothing new.
func TestSlackDeskHoldsMentionsOtherwise(t *testing.T) {
	rows, _, err := readSlackExport(slackMentions, "general")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		content func(raw, read string) string
	}{
		{"as Slack wrote them", func(raw, _ string) string { return raw }},
		{"with other labels", func(_, read string) string {
			return strings.NewReplacer("@Ana", "@Ana P.", "#random", "#off-topic", "@Cho Min-jun", "@cho").Replace(read)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := slackRawTexts(t, slackMentions, slackMentionsDay)
			st := newMemStore()
			for _, r := range rows {
				m := r.Message
				m.Content = tt.content(raw[m.Key], m.Content)
				appendAll(t, st, "main", m)
			}
			counts, err := Import(t.Context(), st, "main", Slack(slackMentions, "general"))
			if want := (Counts{Present: len(rows)}); err != nil || counts != want {
				t.Errorf("import: %+v, %v; want %+v", counts, err, want)
			}
		})
	}
	// A row that differs outside its mentions is not the message as written otherwise: the
	// export changed it without dating the change, and the desk keeps its own text.
	st := newMemStore()
	m := rows[0].Message
	m.Content = "@Ana can you check #random? Notes are elsewhere."
	appendAll(t, st, "main", m)
	counts, err := Import(t.Context(), st, "main", Slack(slackMentions, "general"))
	if want := (Counts{Added: len(rows) - 1, Present: 1, Kept: 1}); err != nil || counts != want {
		t.Errorf("import into a desk whose row differs outside its mentions: %+v, %v; want %+v", counts, err, want)
	}
	if got := readDesk(t, st, "main")[0].Content; got != m.Content {
		t.Errorf("the desk's row reads %q after the import, want its own text %q", got, m.Content)
	}
}

// slackRawTexts returns the texts of the day file name of the export dir, unescaped as
// imports wrote them before they wrote mentions out, by ts.
func slackRawTexts(t *testing.T, dir, name string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	editSlackDay(t, exportfixture.Copy(t, dir), name, func(msgs []map[string]any) []map[string]any {
		for _, m := range msgs {
			texts[m["ts"].(string)] = slackUnescape.Replace(m["text"].(string))
		}
		return msgs
	})
	return texts
}

// TestDiscordNoticesWithoutText: a notice DiscordChatExporter wrote without text (as older
// versions did) reads as it does in Discord, by a system author of its kind; a desk that
// holds it as imports wrote it before ("[GuildMemberJoin]") holds that message.
func TestDiscordNoticesWithoutText(t *testing.T) {
	dir := exportfixture.Copy(t, discordFixture)
	editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
		for _, m := range x["messages"].([]any) {
			m := m.(map[string]any)
			switch m["type"] {
			case "GuildMemberJoin", "ChannelPinnedMessage":
				m["content"] = ""
			}
		}
		msgs := x["messages"].([]any)
		x["messages"] = append(msgs, discordMessage("1235157000000000030", "GuildInviteReminder", "2024-05-01T10:20:00+01:00", ""))
	})
	rows, _, err := readDiscordExport(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind, content string
	}{
		"1235153741414400011": {"join", "Joined the server."},
		"1235155251363840016": {"pin", "Pinned a message."},
		"1235157000000000030": {"guild-invite-reminder", "Guild invite reminder."},
	}
	for _, r := range rows {
		w, ok := want[r.Message.Key]
		if !ok {
			continue
		}
		delete(want, r.Message.Key)
		if a := r.Message.Author; a.Kind != transcript.KindSystem || a.ID != w.kind || r.Message.Content != w.content {
			t.Errorf("%s: %v %q; want a system notice of kind %q, %q", r.Where, a, r.Message.Content, w.kind, w.content)
		}
	}
	if len(want) > 0 {
		t.Errorf("notices not read: %v", want)
	}

	st := newMemStore()
	for _, r := range rows {
		m := r.Message
		if m.Author.Kind == transcript.KindSystem && r.Message.Key != "1235157000000000030" {
			for typ, text := range map[string]string{"GuildMemberJoin": "Joined the server.", "ChannelPinnedMessage": "Pinned a message."} {
				if m.Content == text {
					m.Content = "[" + typ + "]"
				}
			}
		}
		m.Parent = 0
		if r.ParentKey != "" {
			m.Parent = findKey(t, readDesk(t, st, "main"), r.ParentKey).Seq
		}
		appendAll(t, st, "main", m)
	}
	counts, err := Import(t.Context(), st, "main", Discord(dir))
	if want := (Counts{Present: len(rows)}); err != nil || counts != want {
		t.Errorf("into a desk holding the notices as earlier imports wrote them: %+v, %v; want %+v", counts, err, want)
	}
}

// FuzzSlackText writes out the fuzzer's text: never a panic, valid UTF-8 stays valid, and
// the pattern of a valid text with labelled mentions matches the text written out.
func FuzzSlackText(f *testing.F) {
	users := slackUsers{"U1": {ID: "U1", Name: "ana", Profile: slackProfile{DisplayName: "Ana (ops) *"}}}
	channels := map[string]string{"C1": "gen.eral"}
	for _, s := range []string{"<@U1> hi", "<#C1> and <#C2|x>", "<https://x|y> <!here|@here> <!subteam^S>", "a < b > c", "&lt;<@U1|&gt;>&amp;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, pattern := slackText(text, users, channels)
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Errorf("slackText(%q) = %q, not UTF-8", text, got)
		}
		if pattern == "" || !utf8.ValidString(text) { // the stores refuse invalid UTF-8, and so does the import
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Fatalf("slackText(%q): pattern %q: %v", text, pattern, err)
		}
		if !re.MatchString(got) {
			t.Errorf("slackText(%q) = %q, which its pattern %q does not match", text, got, pattern)
		}
	})
}
