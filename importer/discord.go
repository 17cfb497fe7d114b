package importer

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// readDiscordExport reads a DiscordChatExporter JSON export of one Discord channel. name is
// either
//
//   - one export file: its messages, whose replies name messages of that file (a thread's
//     file read alone is read as a channel of its own); or
//   - a folder, or a .zip of one, holding the .json files of one channel and of its
//     threads, as DiscordChatExporter writes them side by side ("Include threads"): the
//     channel's file (or the parts of a partitioned export), and a file for each thread,
//     whose channel.type names a thread and whose channel.categoryId is the channel's id.
//     Its other files and folders (downloaded media) are not read. A thread's messages are
//     replies to the message that started it: the channel's message whose id is the
//     thread's id (a thread started from a message), else the thread's own message with
//     that id (a forum post), else the channel's ThreadCreated notice that names the
//     thread, else the desk's message with that id (an earlier export held it). The
//     ThreadStarterMessage a thread's file begins with repeats that message and is skipped.
//
// It returns the messages of all those files in timestamp order (ties by id), oldest first,
// each with its id as Message.Key, its timestamp (in UTC) as Message.At, Message.Parent 0,
// and Where naming the file and the id: `"general [1235].json": message 1235153741414400017`.
// The mapping:
//
//   - A Reply's ParentKey is reference.messageId: a message of the export, or of the desk
//     (a later export holds replies to messages an earlier one held; the import finds it);
//     a reply to a message of another channel, which the export cannot hold, stays where
//     it is (a root, or a reply to its thread's start) with a line "[reply to a message in
//     another channel]". Other messages of a thread have the thread's start as parent.
//   - A Reply keeps its reference when the message it replied to is deleted. In an export of
//     the channel's whole history (no file has a dateRange.after), a message replied to that
//     is in neither the export nor the desk was deleted, and no export will ever hold it: the
//     reply stays where it is, as a reply to another channel's message does, but with no
//     line added (ParentKeyInstead). An export of a date range may lack the message only
//     because it is older than the range: its reply fails the import (see storeRows).
//   - The author is transcript.Agent(author.id, label) when author.isBot, else
//     transcript.Person(author.id, label), the label being the nickname, else the name.
//   - Default, Reply and the replies to commands (ChatInputCommand, ContextMenuCommand) are
//     messages; every other type is a system notice, transcript.System(kind, label of the
//     author), kind "join" (GuildMemberJoin, RecipientAdd), "leave", "rename", "icon",
//     "pin", "thread", "call", or the type in kebab case ("guild-boost"); its content is the
//     text DiscordChatExporter wrote for it ("Pinned a message."), or when it wrote none
//     (as older versions did), the text it writes now (dceNoticeText). A desk row holding
//     the "[GuildMemberJoin]" earlier imports wrote instead is the same message.
//   - Content is the message's content (as edited last), followed by a line for each
//     attachment ("[attachment: report.pdf]"), embed ("[embed: title]") and sticker
//     ("[sticker: name]"); a forwarded message adds "[forwarded message]" and its content.
//   - A message edited (timestampEdited) is an edit too, keyed by its id and the edit's
//     time in UTC (id + "/edited/" + time in RFC 3339) and timed by it: should the desk
//     hold the message (by its id) with an older text, the import appends that edit of it
//     by its author; a desk whose text is newer keeps it. A message first imported already
//     edited is stored with its text and that edit, which records how new the text is.
//   - A message whose content the desk holds otherwise, with no timestampEdited newer
//     than the desk's text (a link's preview the exporter found later), is kept as the
//     desk has it: the export does not date the change (see storeRows).
//
// A missing file, malformed JSON, a file that is not such an export, or files of more than
// one channel are errors naming the file. Bad messages — an invalid id or timestamp, an id
// given twice, no author id, a reply older than the message it replies to, a NUL byte —
// are all reported in one error (up to maxReported), each named by its Where; no error
// quotes a message's text. In an export of a date range, a reply to a message in neither
// the export nor the desk is reported by the import (see storeRows), naming both.
func readDiscordExport(name string) ([]importRow, *chatPrep, error) {
	rows, prep, err := readDiscord(name)
	if err != nil {
		return nil, nil, fmt.Errorf("discord export %s: %w", name, err)
	}
	return rows, prep, nil
}

// dceExport is a DiscordChatExporter JSON file. It holds more members; these are the ones
// the import reads.
type dceExport struct {
	Channel   *dceChannel `json:"channel"`
	DateRange *struct {
		After *string `json:"after"` // the export holds the messages after it; null for all
	} `json:"dateRange"`
	Messages *[]dceMessage `json:"messages"`
}

// dceChannel is an export's channel. For a thread, categoryId is its parent channel's id.
type dceChannel struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	CategoryID string `json:"categoryId"`
}

// dceMessage is one message of an export.
type dceMessage struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	// TimestampEdited is when the message was last edited; empty (or null) for one never edited.
	TimestampEdited string `json:"timestampEdited"`
	Content         string `json:"content"`
	Author          struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Nickname string `json:"nickname"`
		IsBot    bool   `json:"isBot"`
	} `json:"author"`
	Attachments []dceAttachment `json:"attachments"`
	Embeds      []struct {
		Title string `json:"title"`
		URL   string `json:"url"`
	} `json:"embeds"`
	Stickers []struct {
		Name string `json:"name"`
	} `json:"stickers"`
	Reference *struct {
		Type      string `json:"type"` // "Default" (a reply, a pin, a thread), "Forward"
		MessageID string `json:"messageId"`
		ChannelID string `json:"channelId"`
	} `json:"reference"`
	ForwardedMessage *struct {
		Content     string          `json:"content"`
		Attachments []dceAttachment `json:"attachments"`
	} `json:"forwardedMessage"`
}

type dceAttachment struct {
	FileName string `json:"fileName"`
}

// dceTypeNames names the message types by their number in Discord's API:
// DiscordChatExporter writes a type its own list lacks as that number ("21").
var dceTypeNames = map[string]string{
	"0": "Default", "1": "RecipientAdd", "2": "RecipientRemove", "3": "Call",
	"4": "ChannelNameChange", "5": "ChannelIconChange", "6": "ChannelPinnedMessage",
	"7": "GuildMemberJoin", "8": "GuildBoost", "9": "GuildBoostTier1", "10": "GuildBoostTier2",
	"11": "GuildBoostTier3", "12": "ChannelFollowAdd", "18": "ThreadCreated", "19": "Reply",
	"20": "ChatInputCommand", "21": "ThreadStarterMessage", "22": "GuildInviteReminder",
	"23": "ContextMenuCommand", "24": "AutoModerationAction",
}

// dceMessageTypes are the types that are messages of their author rather than notices.
var dceMessageTypes = map[string]bool{"": true, "Default": true, "Reply": true, "ChatInputCommand": true, "ContextMenuCommand": true}

// dceNoticeKinds maps the system types to the kinds of notice they become, in the words
// the Slack import uses; other types become their name in kebab case.
var dceNoticeKinds = map[string]string{
	"GuildMemberJoin":      "join",
	"UserJoin":             "join",
	"RecipientAdd":         "join",
	"RecipientRemove":      "leave",
	"ChannelNameChange":    "rename",
	"ChannelIconChange":    "icon",
	"ChannelPinnedMessage": "pin",
	"ThreadCreated":        "thread",
	"Call":                 "call",
}

// dceFile is one export file read.
type dceFile struct {
	name    string // its path in the export, for Where and errors
	first   int    // the export's order of its first message, for the order of problems
	channel dceChannel
	thread  bool // the file is a thread's, read with its channel
	after   bool // the file holds the messages after a time (dateRange.after), not all
	msgs    []dceMessage
}

// readDiscord reads the export name; see readDiscordExport.
func readDiscord(name string) ([]importRow, *chatPrep, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !info.IsDir() && !strings.EqualFold(filepath.Ext(name), ".zip") {
		f, err := readDCEFile(os.DirFS(filepath.Dir(name)), filepath.Base(name))
		if err != nil {
			return nil, nil, err
		}
		return discordRows([]dceFile{f})
	}
	tree, err := openExportTree(name)
	if err != nil {
		return nil, nil, err
	}
	defer tree.close()
	files, err := readDCEFolder(tree.fsys)
	if err != nil {
		return nil, nil, err
	}
	return discordRows(files)
}

// readDCEFile reads the export file name of fsys.
func readDCEFile(fsys fs.FS, name string) (dceFile, error) {
	var x dceExport
	if err := decodeExportFile(fsys, name, &x); err != nil {
		return dceFile{}, err
	}
	if x.Channel == nil || x.Channel.ID == "" || x.Messages == nil {
		return dceFile{}, fmt.Errorf("%q is not a DiscordChatExporter JSON export: it has no channel id or no messages", name)
	}
	after := x.DateRange != nil && x.DateRange.After != nil && *x.DateRange.After != ""
	return dceFile{name: name, channel: *x.Channel, after: after, msgs: *x.Messages}, nil
}

// isDCEThread reports whether a channel type names a thread ("GuildPublicThread",
// "GuildPrivateThread", "GuildNewsThread").
func isDCEThread(channelType string) bool { return strings.HasSuffix(channelType, "Thread") }

// readDCEFolder reads the .json files at the top of fsys: one channel's files and its
// threads'.
func readDCEFolder(fsys fs.FS) ([]dceFile, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var files []dceFile
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".json") {
			continue
		}
		f, err := readDCEFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, errors.New("no .json export file at its top")
	}
	// The channel is the one that is no thread, or else the threads' parent.
	var channel, channelFile string
	for _, f := range files {
		if isDCEThread(f.channel.Type) {
			continue
		}
		if channel != "" && f.channel.ID != channel {
			return nil, fmt.Errorf("%q and %q export different channels (%s and %s): a folder holds one channel and its threads", channelFile, f.name, channel, f.channel.ID)
		}
		channel, channelFile = f.channel.ID, f.name
	}
	for i := range files {
		f := &files[i]
		if !isDCEThread(f.channel.Type) {
			continue
		}
		if channel == "" {
			channel, channelFile = f.channel.CategoryID, f.name
		}
		if f.channel.CategoryID != channel {
			return nil, fmt.Errorf("%q is a thread of channel %s, not of channel %s (%q)", f.name, f.channel.CategoryID, channel, channelFile)
		}
		f.thread = true
	}
	return files, nil
}

// dceRow is a message being read, before ordering.
type dceRow struct {
	importRow
	id     uint64
	order  int // where it was read, for the order of problems
	msg    *dceMessage
	typ    string // the type's name
	thread string // the id of the thread whose file holds it, or ""
	former string // the content earlier imports gave a notice without text, or "" (chatPrep.alike)
}

// discordRows maps the messages of files to rows; see readDiscordExport.
func discordRows(files []dceFile) ([]importRow, *chatPrep, error) {
	var (
		problems problems
		rows     []*dceRow
		byKey    = map[string]*dceRow{}
		starters = map[string]string{} // a skipped ThreadStarterMessage's id → its thread's id
		channels = map[string]bool{}   // the channels and threads of the export
		read     int                   // messages read, for the order of problems
		rejected = map[string]bool{}   // the ids of the bad messages, reported already
	)
	for fi := range files {
		f := &files[fi]
		channels[f.channel.ID] = true
		f.first = read + 1
		for mi := range f.msgs {
			m := &f.msgs[mi]
			read++
			id, err := strconv.ParseUint(m.ID, 10, 64)
			if err != nil || id == 0 {
				problems.add(read, fmt.Sprintf("%q: entry %d", f.name, mi+1), "no id, or one that is not a Discord id")
				continue
			}
			key := strconv.FormatUint(id, 10)
			r := &dceRow{id: id, order: read, msg: m, typ: m.Type, importRow: importRow{Where: fmt.Sprintf("%q: message %s", f.name, key)}}
			if name, ok := dceTypeNames[r.typ]; ok {
				r.typ = name
			}
			if f.thread {
				r.thread = f.channel.ID
			}
			if r.typ == "ThreadStarterMessage" {
				starters[key] = r.thread
				continue
			}
			if first, dup := byKey[key]; dup {
				problems.add(r.order, r.Where, "the same id as %s", first.Where)
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, m.Timestamp)
			if err != nil {
				problems.add(r.order, r.Where, "no timestamp, or one that is not RFC 3339")
				rejected[key] = true
				continue
			}
			if m.Author.ID == "" {
				problems.add(r.order, r.Where, "a message without author id")
				rejected[key] = true
				continue
			}
			content := dceContent(m)
			if !dceMessageTypes[r.typ] && strings.TrimSpace(content) == "" {
				content, r.former = dceNoticeText(r.typ), "["+r.typ+"]"
			}
			r.Message = transcript.Message{Author: dceAuthor(r), Content: content, At: at.UTC(), Key: key}
			if m.TimestampEdited != "" {
				edited, err := time.Parse(time.RFC3339Nano, m.TimestampEdited)
				if err != nil {
					problems.add(r.order, r.Where, "its timestampEdited is not RFC 3339")
					rejected[key] = true
					continue
				}
				// In UTC, as an exporter writes its own time zone's offset.
				edited = edited.UTC()
				if err := storage.ValidateTime("timestampEdited", edited); err != nil {
					problems.add(r.order, r.Where, "its %v", err) // its edit is timed by it
					rejected[key] = true
					continue
				}
				r.Edit = &rowEdit{Key: editKey(key, edited.Format(time.RFC3339Nano)), At: edited}
			}
			byKey[key] = r
			rows = append(rows, r)
		}
	}
	starts := threadStarts(files, byKey, rejected, &problems)
	for _, r := range rows {
		dceParent(r, byKey, rejected, starters, starts, channels, &problems)
		if problem := storeProblem(r.Message, exportWording); problem != "" {
			problems.add(r.order, r.Where, "%s", problem)
		}
	}
	slices.SortStableFunc(rows, func(a, b *dceRow) int {
		return cmp.Or(a.Message.At.Compare(b.Message.At), cmp.Compare(a.id, b.id))
	})
	position := make(map[string]int, len(rows))
	out := make([]importRow, len(rows))
	prep := &chatPrep{replyTo: "a reply to message", wholeHistory: !slices.ContainsFunc(files, func(f dceFile) bool { return f.after })}
	for i, r := range rows {
		position[r.Message.Key] = i
		out[i] = r.importRow
		// A parent in neither the export nor the desk is found by the import (storeRows).
		if _, inExport := byKey[r.ParentKey]; inExport {
			if _, before := position[r.ParentKey]; !before {
				problems.add(r.order, r.Where, "replies to message %s, which is newer", r.ParentKey)
			}
		}
		if former := r.former; former != "" {
			if prep.alike == nil {
				prep.alike = make(map[string]func(string) bool)
			}
			prep.alike[r.Message.Key] = func(content string) bool { return content == former }
		}
	}
	if err := problems.exportErr(); err != nil {
		return nil, nil, err
	}
	return out, prep, nil
}

// threadStarts returns, for each thread file, the key of the message its messages reply to.
// A thread whose start is a bad message, reported already, is not reported again.
func threadStarts(files []dceFile, byKey map[string]*dceRow, rejected map[string]bool, problems *problems) map[string]string {
	created := map[string]string{} // thread id → key of the ThreadCreated notice naming it
	for _, r := range byKey {
		if r.typ != "ThreadCreated" || r.thread != "" || r.msg.Reference == nil || r.msg.Reference.ChannelID == "" {
			continue
		}
		thread := r.msg.Reference.ChannelID
		if other, ok := created[thread]; !ok || byKey[other].id > r.id {
			created[thread] = r.Message.Key // the oldest notice, should there be two
		}
	}
	starts := map[string]string{}
	for i := range files {
		f := &files[i]
		if !f.thread {
			continue
		}
		id := f.channel.ID
		if _, done := starts[id]; done {
			continue // another part of the same thread
		}
		if _, ok := byKey[id]; ok {
			starts[id] = id // started from a message of the channel, or a forum post
		} else if key, ok := created[id]; ok {
			starts[id] = key
		} else if rejected[id] {
			starts[id] = ""
		} else {
			starts[id] = id // a message of the desk, should an earlier export have held it
		}
	}
	return starts
}

// dceParent sets r's ParentKey, or records why it cannot be set (unless its parent is a bad
// message, reported already).
func dceParent(r *dceRow, byKey map[string]*dceRow, rejected map[string]bool, starters, starts map[string]string, channels map[string]bool, problems *problems) {
	start := starts[r.thread] // "" outside a thread's file
	if r.Message.Key == start {
		start = "" // a forum post's own first message
	}
	ref := r.msg.Reference
	if r.typ != "Reply" || ref == nil || ref.MessageID == "" || ref.Type == "Forward" {
		r.ParentKey = start
		return
	}
	key := ref.MessageID
	if id, err := strconv.ParseUint(key, 10, 64); err == nil {
		key = strconv.FormatUint(id, 10)
	}
	switch thread, isStarter := starters[key]; {
	case byKey[key] != nil:
		r.ParentKey = key
	case rejected[key]:
	case isStarter && starts[thread] != "":
		r.ParentKey = starts[thread]
	case ref.ChannelID != "" && !channels[ref.ChannelID]:
		r.ParentKey = start
		r.Message.Content = withLines(r.Message.Content, []string{"[reply to a message in another channel]"})
	default:
		r.ParentKey = key // a message of the desk, should an earlier export have held it
		r.ParentDeletable, r.ParentKeyInstead = true, start
	}
}

// dceAuthor returns who wrote r's message.
func dceAuthor(r *dceRow) transcript.Author {
	a := r.msg.Author
	label := cmp.Or(singleLine(a.Nickname), singleLine(a.Name), a.ID)
	switch {
	case !dceMessageTypes[r.typ]:
		return transcript.System(dceNoticeKind(r.typ), label)
	case a.IsBot:
		return transcript.Agent(a.ID, label)
	}
	return transcript.Person(a.ID, label)
}

// dceNoticeKind returns the kind of system notice a message type becomes.
func dceNoticeKind(typ string) string {
	if kind, ok := dceNoticeKinds[typ]; ok {
		return kind
	}
	if digitsOnly(typ) {
		return "discord-" + typ
	}
	var b strings.Builder
	for i, r := range typ {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// dceNoticeTexts are the texts DiscordChatExporter gives the notices of these types when
// Discord gives them none.
var dceNoticeTexts = map[string]string{
	"GuildMemberJoin":      "Joined the server.",
	"UserJoin":             "Joined the server.",
	"RecipientAdd":         "Added a recipient.",
	"RecipientRemove":      "Removed a recipient.",
	"Call":                 "Started a call.",
	"ChannelNameChange":    "Changed the channel name.",
	"ChannelIconChange":    "Changed the channel icon.",
	"ChannelPinnedMessage": "Pinned a message.",
	"ThreadCreated":        "Started a thread.",
	"GuildBoost":           "Boosted the server.",
	"GuildBoostTier1":      "Boosted the server to level 1.",
	"GuildBoostTier2":      "Boosted the server to level 2.",
	"GuildBoostTier3":      "Boosted the server to level 3.",
	"ChannelFollowAdd":     "Followed a channel.",
}

// dceNoticeText returns the text of a notice of type typ that has none: what
// DiscordChatExporter writes for it, else its type in words ("Guild invite reminder.").
func dceNoticeText(typ string) string {
	if text, ok := dceNoticeTexts[typ]; ok {
		return text
	}
	if digitsOnly(typ) {
		return "A Discord notice of type " + typ + "."
	}
	words := []rune(strings.ReplaceAll(dceNoticeKind(typ), "-", " "))
	if len(words) == 0 {
		return "A Discord notice."
	}
	return string(unicode.ToUpper(words[0])) + string(words[1:]) + "."
}

// dceContent returns m's content followed by a line for each attachment, embed and
// sticker, and a forwarded message's content.
func dceContent(m *dceMessage) string {
	var lines []string
	for _, a := range m.Attachments {
		lines = append(lines, attachmentLine(a.FileName))
	}
	for _, e := range m.Embeds {
		if name := cmp.Or(singleLine(e.Title), singleLine(e.URL)); name != "" {
			lines = append(lines, "[embed: "+clipName(name)+"]")
		} else {
			lines = append(lines, "[embed]")
		}
	}
	for _, s := range m.Stickers {
		lines = append(lines, "[sticker: "+clipName(cmp.Or(singleLine(s.Name), "unnamed"))+"]")
	}
	if fw := m.ForwardedMessage; fw != nil {
		lines = append(lines, "[forwarded message]")
		if fw.Content != "" {
			lines = append(lines, fw.Content)
		}
		for _, a := range fw.Attachments {
			lines = append(lines, attachmentLine(a.FileName))
		}
	}
	return withLines(m.Content, lines)
}

// attachmentLine names an attached file.
func attachmentLine(fileName string) string {
	if name := singleLine(fileName); name != "" {
		return "[attachment: " + clipName(name) + "]"
	}
	return "[attachment]"
}
