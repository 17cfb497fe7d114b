package importer

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// readSlackExport reads one channel of a Slack workspace export: the folder Slack's export
// unpacks to, or its .zip (holding the export at its root or inside one top-level folder).
// The export must hold users.json (org_users.json for an Enterprise Grid export),
// channels.json and, for the channel, a folder of day files YYYY-MM-DD.json, each a JSON
// array of messages; other files of that folder are not read. channel names the channel as
// channels.json does ("general", with or without "#"), or by its id ("C01GENERAL");
// private channels and group messages listed in groups.json and mpims.json are found too.
//
// It returns the channel's messages in ts order across all day files, oldest first, each
// with its ts as Message.Key and as Message.At (seconds and microseconds since the epoch, in
// UTC), Message.Parent 0, and Where naming the day file and the ts:
// `"general/2024-05-01.json": message 1714550400.000100`. The mapping:
//
//   - A reply (thread_ts set and not its own ts) has ParentKey = thread_ts, its thread's
//     root: an older message of the export, or of the desk (a later export holds replies
//     to threads an earlier one began; the import finds it). A thread_broadcast ("also sent to
//     the channel") is such a reply too: the desk's channel view shows a thread's first
//     reply already, and the message belongs where it was written.
//   - A user's message is by transcript.Person(user id, label), the label being the
//     profile's display_name, else its real_name, else the user's real_name, else name
//     (users.json; a user it lacks is named by the message's user_profile, else by id).
//     A user marked is_bot, and Slackbot (USLACKBOT), is an agent.
//   - A bot's message (bot_id, or subtype bot_message) is by transcript.Agent(bot_id,
//     label), the label being username, else bot_profile.name, else the bot user's label. A
//     bot user's own messages use its profile's bot_id too, so one bot is one agent.
//   - Joins, leaves, topic, purpose and name changes, archiving, pins and the like are
//     system notices: transcript.System(kind, label of the user who acted), kind "join",
//     "leave", "topic", "purpose", "rename", "archive", "unarchive", "pin", "unpin", ...
//     (slackNoticeKinds); a deleted thread root Slack keeps as a tombstone is a "deleted"
//     notice, so that its replies keep their root.
//   - Content is the message's text (its final text when edited) as people read it in
//     Slack (slackText): escapes undone, <@U02BO> written "@Ana", <#C01|general>
//     "#general", <!here> "@here", <https://x|label> "label (https://x)"; each file adds
//     a line "[file: name]" and each attachment a line "[attachment: title]". The text as
//     Slack wrote it stays in the export: the desk's rows have no field for it. A desk row
//     holding it, as imports wrote it before they wrote mentions out, is the same message.
//   - Edit and deletion events (message_changed, message_deleted, message_replied) are not
//     messages and are skipped.
//   - A message Slack marks as edited (edited: the editor's user and the edit's ts) is an
//     edit too, keyed by the message's ts and the edit's (ts + "/edited/" + edited.ts) and
//     timed by edited.ts: should the desk hold the message (by its ts) with an older text,
//     the import appends that edit of it by its author; a desk whose text is newer keeps
//     it. A message first imported already edited is stored with its text and that edit,
//     which records how new the text is (see storeRows).
//
// A later export of the same channel yields the same rows for the messages both hold (same
// keys, authors, parents and content, unless edited since; labels may differ, in authors
// and in mentions, which the import takes as alike: chatPrep.alike), so importing it adds
// only the new ones and the edits. A message it holds changed without an edit Slack dates
// (a file deleted, a bot's message updated, a thread root deleted since and kept as a
// tombstone) the desk keeps as it has it (see storeRows).
//
// A missing or malformed users.json or channels.json, an unknown channel, a missing
// channel folder or a malformed day file is an error naming the file. Bad messages — no
// or an invalid ts, a ts given twice, no author, a reply older than its thread's root, a
// NUL byte — are all reported in one error (up to maxReported), each named by its
// Where; no error quotes a message's text. A reply whose root is in neither the export nor
// the desk is reported by the import (see storeRows), naming both.
func readSlackExport(name, channel string) ([]importRow, *chatPrep, error) {
	tree, err := openExportTree(name)
	if err != nil {
		return nil, nil, fmt.Errorf("slack export %s: %w", name, err)
	}
	defer tree.close()
	rows, prep, err := readSlackTree(tree.fsys, channel)
	if err != nil {
		return nil, nil, fmt.Errorf("slack export %s: %w", name, err)
	}
	return rows, prep, nil
}

// slackUser is an entry of users.json.
type slackUser struct {
	ID       string       `json:"id"`
	Name     string       `json:"name"`
	RealName string       `json:"real_name"`
	Deleted  bool         `json:"deleted"`
	IsBot    bool         `json:"is_bot"`
	Profile  slackProfile `json:"profile"`
}

// slackProfile is a user's profile in users.json, or the user_profile a message carries.
type slackProfile struct {
	DisplayName string `json:"display_name"`
	RealName    string `json:"real_name"`
	Name        string `json:"name"`   // user_profile only
	BotID       string `json:"bot_id"` // a bot user's bot
}

// slackChannel is an entry of channels.json (groups.json, mpims.json).
type slackChannel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// slackMessage is an entry of a day file. Slack writes many more members; these are the
// ones the import reads.
type slackMessage struct {
	Type       string `json:"type"`
	Subtype    string `json:"subtype"`
	TS         string `json:"ts"`
	ThreadTS   string `json:"thread_ts"`
	User       string `json:"user"`
	Text       string `json:"text"`
	BotID      string `json:"bot_id"`
	Username   string `json:"username"`
	BotProfile *struct {
		Name string `json:"name"`
	} `json:"bot_profile"`
	UserProfile *slackProfile `json:"user_profile"`
	Edited      *struct {
		User string `json:"user"`
		TS   string `json:"ts"`
	} `json:"edited"`
	Files []struct {
		Name  string `json:"name"`
		Title string `json:"title"`
		Mode  string `json:"mode"` // "tombstone" for a deleted file, "hidden_by_limit"
	} `json:"files"`
	Attachments []struct {
		Title    string `json:"title"`
		Fallback string `json:"fallback"`
		FromURL  string `json:"from_url"`
	} `json:"attachments"`
}

// slackbot is the user id of Slack's own bot, which users.json does not mark is_bot.
const slackbot = "USLACKBOT"

// slackNoticeKinds maps the subtypes of Slack's channel events to the kind of system
// notice they become. Other subtypes (me_message, file_share, thread_broadcast, ...) are
// ordinary messages of their user.
var slackNoticeKinds = map[string]string{
	"channel_join":                "join",
	"group_join":                  "join",
	"channel_leave":               "leave",
	"group_leave":                 "leave",
	"channel_topic":               "topic",
	"group_topic":                 "topic",
	"channel_purpose":             "purpose",
	"group_purpose":               "purpose",
	"channel_name":                "rename",
	"group_name":                  "rename",
	"channel_archive":             "archive",
	"group_archive":               "archive",
	"channel_unarchive":           "unarchive",
	"group_unarchive":             "unarchive",
	"channel_posting_permissions": "permissions",
	"channel_convert_to_private":  "visibility",
	"channel_convert_to_public":   "visibility",
	"pinned_item":                 "pin",
	"unpinned_item":               "unpin",
	"bot_add":                     "bot",
	"bot_remove":                  "bot",
	"bot_enable":                  "bot",
	"bot_disable":                 "bot",
	"reminder_add":                "reminder",
	"huddle_thread":               "huddle",
	"tombstone":                   "deleted",
}

// slackEvents are the subtypes of entries that record a change to another message rather
// than a message.
var slackEvents = map[string]bool{"message_changed": true, "message_deleted": true, "message_replied": true}

// slackDayFile matches the name of a day file of a channel folder.
var slackDayFile = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.json$`)

// slackUnescape undoes the three escapes Slack applies to message text.
var slackUnescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// readSlackTree reads channel from an export opened as fsys; see readSlackExport.
func readSlackTree(fsys fs.FS, channel string) ([]importRow, *chatPrep, error) {
	users, err := readSlackUsers(fsys)
	if err != nil {
		return nil, nil, err
	}
	folder, err := findSlackChannel(fsys, channel)
	if err != nil {
		return nil, nil, err
	}
	channels := map[string]string{} // id → name, for the channels a message mentions
	if err := eachSlackChannel(fsys, func(c slackChannel) bool { channels[c.ID] = c.Name; return true }); err != nil {
		return nil, nil, err
	}
	entries, err := fs.ReadDir(fsys, folder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("channel %q has no folder %q in the export", channel, folder+"/")
	}
	if err != nil {
		return nil, nil, err
	}
	var (
		rows     []slackRow
		problems problems
		seen     = map[string]string{} // ts → Where
		read     int                   // entries read, for the order of problems
		rejected = map[string]bool{}   // the ts of the bad messages, reported already
	)
	for _, e := range entries {
		if e.IsDir() || !slackDayFile.MatchString(e.Name()) {
			continue
		}
		file := path.Join(folder, e.Name())
		var msgs []slackMessage
		if err := decodeExportFile(fsys, file, &msgs); err != nil {
			return nil, nil, err
		}
		for i := range msgs {
			m := &msgs[i]
			read++
			if slackEvents[m.Subtype] {
				continue
			}
			row, ok := users.row(file, i, read, m, channels, &problems)
			if !ok {
				rejected[m.TS] = true // its replies are not reported again
				continue
			}
			if first, dup := seen[row.Message.Key]; dup {
				problems.add(read, row.Where, "the same ts as %s", first)
				continue
			}
			seen[row.Message.Key] = row.Where
			rows = append(rows, row)
		}
	}
	slices.SortStableFunc(rows, func(a, b slackRow) int { return a.at.Compare(b.at) })
	position := make(map[string]int, len(rows))
	out := make([]importRow, len(rows))
	prep := &chatPrep{replyTo: "a reply in the thread of", deleted: slackNoticeKinds["tombstone"]}
	for i, r := range rows {
		position[r.Message.Key] = i
		out[i] = r.importRow
		if alike := r.alike(); alike != nil {
			if prep.alike == nil {
				prep.alike = make(map[string]func(string) bool)
			}
			prep.alike[r.Message.Key] = alike
		}
	}
	for i, r := range rows {
		// A root in neither the export nor the desk is found by the import (storeRows).
		if p, ok := position[r.ParentKey]; ok && p > i {
			problems.add(r.order, r.Where, "a reply older than its thread's root %s", r.ParentKey)
		}
	}
	if err := problems.exportErr(); err != nil {
		return nil, nil, err
	}
	return out, prep, nil
}

// slackRow is a row with its ts parsed, for sorting.
type slackRow struct {
	importRow
	at      time.Time
	order   int    // where it was read, for the order of problems
	former  string // the content earlier imports gave it, its markup as Slack wrote it
	pattern string // what matches its content with any labels in its mentions, or "" (slackText)
}

// alike returns whether a content is r's as a desk may hold it (chatPrep.alike): as earlier
// imports wrote it, or with other labels in its mentions; nil when only its own content is.
func (r *slackRow) alike() func(string) bool {
	if r.former == r.Message.Content && r.pattern == "" {
		return nil
	}
	former, pattern := r.former, r.pattern
	return func(content string) bool {
		if content == former {
			return true
		}
		if pattern == "" {
			return false
		}
		re, err := regexp.Compile(pattern) // a text too long for one is taken as itself alone
		return err == nil && re.MatchString(content)
	}
}

// slackUsers is users.json by user id.
type slackUsers map[string]*slackUser

// readSlackUsers reads users.json, or org_users.json when only that is present.
func readSlackUsers(fsys fs.FS) (slackUsers, error) {
	name := "users.json"
	if _, err := fs.Stat(fsys, name); errors.Is(err, fs.ErrNotExist) {
		if _, err := fs.Stat(fsys, "org_users.json"); err == nil {
			name = "org_users.json"
		}
	}
	var list []slackUser
	if err := decodeExportFile(fsys, name, &list); err != nil {
		return nil, err
	}
	users := make(slackUsers, len(list))
	for i := range list {
		users[list[i].ID] = &list[i]
	}
	return users, nil
}

// findSlackChannel returns the folder of the channel named, or identified, by channel in
// channels.json, groups.json or mpims.json (the last two are optional).
func findSlackChannel(fsys fs.FS, channel string) (string, error) {
	want := strings.TrimPrefix(channel, "#")
	var (
		found string
		names []string
	)
	err := eachSlackChannel(fsys, func(c slackChannel) bool {
		if c.Name != "" && (c.Name == want || c.ID == want) {
			found = c.Name
			return false
		}
		names = append(names, c.Name)
		return true
	})
	switch {
	case err != nil:
		return "", err
	case found != "":
		return found, nil
	}
	known := "none"
	if len(names) > 0 {
		known = listNames(names)
	}
	return "", fmt.Errorf("no channel %q in the export; its channels are: %s", channel, known)
}

// slackChannelNames returns the names of the channels of fsys's lists, as findSlackChannel
// reads them; none when a list cannot be read.
func slackChannelNames(fsys fs.FS) []string {
	var names []string
	err := eachSlackChannel(fsys, func(c slackChannel) bool {
		if c.Name != "" {
			names = append(names, c.Name)
		}
		return true
	})
	if err != nil {
		return nil
	}
	return names
}

// eachSlackChannel calls fn with each entry of channels.json, then of groups.json and
// mpims.json when the export holds them, until fn returns false.
func eachSlackChannel(fsys fs.FS, fn func(slackChannel) bool) error {
	for _, list := range []string{"channels.json", "groups.json", "mpims.json"} {
		if list != "channels.json" {
			if _, err := fs.Stat(fsys, list); errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
		var channels []slackChannel
		if err := decodeExportFile(fsys, list, &channels); err != nil {
			return err
		}
		for _, c := range channels {
			if !fn(c) {
				return nil
			}
		}
	}
	return nil
}

// listNames returns names, sorted in place, comma-separated: the first 20, and how many
// more there are.
func listNames(names []string) string {
	slices.Sort(names)
	const listed = 20
	list := strings.Join(names[:min(len(names), listed)], ", ")
	if len(names) > listed {
		list += fmt.Sprintf(" and %d more", len(names)-listed)
	}
	return list
}

// row turns the message at index i of file, the export's entry number order, into a row,
// or records why it cannot be one and returns false.
func (users slackUsers) row(file string, i, order int, m *slackMessage, channels map[string]string, problems *problems) (slackRow, bool) {
	at, ok := parseSlackTS(m.TS)
	if !ok {
		problems.add(order, fmt.Sprintf("%q: entry %d", file, i+1), "no ts, or one that is not a Slack timestamp")
		return slackRow{}, false
	}
	where := fmt.Sprintf("%q: message %s", file, m.TS)
	if m.Type != "" && m.Type != "message" {
		problems.add(order, where, "an entry of type %q, not a message", m.Type)
		return slackRow{}, false
	}
	r := slackRow{at: at, order: order, importRow: importRow{Where: where}}
	if m.ThreadTS != "" && m.ThreadTS != m.TS {
		if _, ok := parseSlackTS(m.ThreadTS); !ok {
			problems.add(order, where, "its thread_ts is not a Slack timestamp")
			return slackRow{}, false
		}
		r.ParentKey = m.ThreadTS
	}
	author, problem := users.author(m)
	if problem != "" {
		problems.add(order, where, "%s", problem)
		return slackRow{}, false
	}
	lines := slackLines(m)
	text, pattern := slackText(m.Text, users, channels)
	r.Message = transcript.Message{Author: author, Content: withLines(text, lines), At: at, Key: m.TS}
	r.former = withLines(slackUnescape.Replace(m.Text), lines)
	if pattern != "" {
		r.pattern = strings.TrimSuffix(pattern, `\z`) + regexp.QuoteMeta(strings.TrimPrefix(r.Message.Content, text)) + `\z`
	}
	if problem := storeProblem(r.Message, exportWording); problem != "" {
		problems.add(order, where, "%s", problem)
		return slackRow{}, false
	}
	if m.Edited != nil && m.Edited.TS != "" {
		editedAt, ok := parseSlackTS(m.Edited.TS)
		if !ok {
			problems.add(order, where, "its edited.ts is not a Slack timestamp")
			return slackRow{}, false
		}
		if err := storage.ValidateTime("edited.ts", editedAt); err != nil {
			problems.add(order, where, "its %v", err) // its edit is timed by it
			return slackRow{}, false
		}
		r.Edit = &rowEdit{Key: editKey(m.TS, m.Edited.TS), At: editedAt}
	}
	return r, true
}

// author returns who wrote m, or what keeps it from being known.
func (users slackUsers) author(m *slackMessage) (transcript.Author, string) {
	if kind, ok := slackNoticeKinds[m.Subtype]; ok {
		label := "Slack"
		if m.User != "" {
			label = users.label(m.User, m.UserProfile)
		}
		return transcript.System(kind, label), ""
	}
	if m.BotID != "" || m.Subtype == "bot_message" {
		id := m.BotID
		if id == "" {
			id = users.botID(m.User)
		}
		if id == "" {
			return transcript.Author{}, "a bot message without bot_id or user"
		}
		label := m.Username
		if label == "" && m.BotProfile != nil {
			label = m.BotProfile.Name
		}
		if label == "" && m.User != "" {
			label = users.label(m.User, m.UserProfile)
		}
		if label == "" {
			label = id
		}
		return transcript.Agent(id, label), ""
	}
	if m.User == "" {
		return transcript.Author{}, "a message without user or bot_id"
	}
	label := users.label(m.User, m.UserProfile)
	if u := users[m.User]; m.User == slackbot || (u != nil && u.IsBot) {
		return transcript.Agent(users.botID(m.User), label), ""
	}
	return transcript.Person(m.User, label), ""
}

// botID returns the agent id of the bot user id: its profile's bot_id, else id itself.
func (users slackUsers) botID(id string) string {
	if u := users[id]; u != nil && u.Profile.BotID != "" {
		return u.Profile.BotID
	}
	return id
}

// label names the user id as Slack shows them: from users.json, else from the profile the
// message carries, else by id.
func (users slackUsers) label(id string, profile *slackProfile) string {
	var names []string
	if u := users[id]; u != nil {
		names = []string{u.Profile.DisplayName, u.Profile.RealName, u.RealName, u.Name}
	} else if profile != nil {
		names = []string{profile.DisplayName, profile.RealName, profile.Name}
	}
	for _, n := range names {
		if n = singleLine(n); n != "" {
			return n
		}
	}
	if id == slackbot {
		return "Slackbot"
	}
	return id
}

// slackLines returns the lines that follow m's text: one for each file and each attachment.
func slackLines(m *slackMessage) []string {
	var lines []string
	for _, f := range m.Files {
		name := cmp.Or(singleLine(f.Name), singleLine(f.Title))
		switch {
		case name != "":
			lines = append(lines, "[file: "+clipName(name)+"]")
		case f.Mode == "tombstone":
			lines = append(lines, "[file: deleted]")
		default:
			lines = append(lines, "[file]")
		}
	}
	for _, a := range m.Attachments {
		if name := cmp.Or(singleLine(a.Title), singleLine(a.Fallback), singleLine(a.FromURL)); name != "" {
			lines = append(lines, "[attachment: "+clipName(slackUnescape.Replace(name))+"]")
		} else {
			lines = append(lines, "[attachment]")
		}
	}
	return lines
}

// parseSlackTS returns the time a Slack ts ("1714550400.000100": seconds, a dot, and
// usually six digits of fraction) stands for, and whether ts is one.
func parseSlackTS(ts string) (time.Time, bool) {
	secs, frac, _ := strings.Cut(ts, ".")
	if secs == "" || len(secs) > 12 || len(frac) > 9 || !digitsOnly(secs) || !digitsOnly(frac) ||
		(strings.Contains(ts, ".") && frac == "") {
		return time.Time{}, false
	}
	s, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var ns int64
	if frac != "" {
		n, err := strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		for range 9 - len(frac) {
			n *= 10
		}
		ns = n
	}
	return time.Unix(s, ns).UTC(), true
}

// digitsOnly reports whether s holds only the digits 0-9 (true for "").
func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// clipName cuts s to at most 200 characters, marking a cut with "…", so that a line naming
// an attachment stays short.
func clipName(s string) string {
	const limit = 200
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
