package importer

import (
	"regexp"
	"strings"
)

// slackText turns the text of a Slack message, as Slack stores it, into what people read
// in Slack: its escapes &amp; &lt; &gt; undone, and its markup written out.
//
//   - A user mention <@U02BO> (or <@U02BO|ana>) becomes "@" and the user's label as the
//     message's author is labelled (users.json's display name, else real name, else name),
//     else the label the mention gives, else the id.
//   - A channel <#C01|general> (or <#C01>) becomes "#general": the label it gives, else its
//     name in channels.json, else its id.
//   - <!here>, <!channel> and <!everyone> become "@here", "@channel" and "@everyone"; a
//     user group <!subteam^S01|@design> its handle; a date <!date^…|Feb 18> its fallback
//     text; another command its label, else "@" and its name.
//   - A link <https://x|label> becomes "label (https://x)", and <https://x> "https://x". A
//     label that is the address without its scheme (as Slack writes a pasted address) is
//     not repeated: "https://x", or for mailto: and tel: the label alone.
//
// A "<" without its ">" is kept as it is.
//
// As an author's label is, a mention's is no part of what makes a message the same: another
// export, whose users.json names a user otherwise, writes the same message with another
// label. So slackText also returns, when text mentions a user or a channel by id alone, a
// regular expression that matches the text written with any labels for them; else "".
func slackText(text string, users slackUsers, channels map[string]string) (string, string) {
	if !strings.Contains(text, "<") {
		return slackUnescape.Replace(text), ""
	}
	var b, pattern strings.Builder
	labelled := false // a piece depends on users.json or channels.json
	pattern.WriteString(`\A`)
	for {
		open := strings.IndexByte(text, '<')
		if open < 0 {
			break
		}
		end := strings.IndexByte(text[open:], '>')
		if end < 0 {
			break
		}
		plain := slackUnescape.Replace(text[:open])
		b.WriteString(plain)
		pattern.WriteString(regexp.QuoteMeta(plain))
		piece, wildcard := slackMarkup(text[open+1:open+end], users, channels)
		b.WriteString(piece)
		if wildcard != "" {
			pattern.WriteString(regexp.QuoteMeta(wildcard) + `[^\n]*?`)
			labelled = true
		} else {
			pattern.WriteString(regexp.QuoteMeta(piece))
		}
		text = text[open+end+1:]
	}
	plain := slackUnescape.Replace(text)
	b.WriteString(plain)
	if !labelled {
		return b.String(), ""
	}
	pattern.WriteString(regexp.QuoteMeta(plain) + `\z`)
	return b.String(), pattern.String()
}

// slackMarkup writes out the inside of one <…> of a message's text; see slackText. A piece
// whose label comes from users.json or channels.json is returned with the sign that
// precedes the label ("@", "#") as wildcard.
func slackMarkup(inner string, users slackUsers, channels map[string]string) (piece, wildcard string) {
	target, label, _ := strings.Cut(inner, "|")
	label = slackUnescape.Replace(label)
	switch {
	case strings.HasPrefix(target, "@"):
		id := target[1:]
		if users[id] != nil || id == slackbot || label == "" {
			return "@" + users.label(id, nil), "@"
		}
		return "@" + strings.TrimPrefix(label, "@"), ""
	case strings.HasPrefix(target, "#"):
		id := target[1:]
		if label != "" {
			return "#" + label, ""
		}
		if name := channels[id]; name != "" {
			return "#" + name, "#"
		}
		return "#" + id, "#"
	case strings.HasPrefix(target, "!"):
		command, arg, _ := strings.Cut(target[1:], "^")
		switch {
		case command == "here" || command == "channel" || command == "everyone":
			return "@" + command, ""
		case label != "" && command == "subteam":
			return "@" + strings.TrimPrefix(label, "@"), ""
		case label != "":
			return label, ""
		case command == "subteam" && arg != "":
			return "@" + arg, ""
		}
		return "@" + command, ""
	}
	url := slackUnescape.Replace(target)
	if label == "" || label == url {
		return url, ""
	}
	scheme, rest, ok := strings.Cut(url, ":")
	if ok && !strings.ContainsAny(scheme, "/?#") {
		if after, slashes := strings.CutPrefix(rest, "//"); slashes && label == after {
			return url, ""
		} else if !slashes && label == rest {
			return label, ""
		}
	}
	return label + " (" + url + ")", ""
}
