// The mapping every framework adapter shares: a participant's view as model turns, exactly
// as `transcript view --format openai` renders it. The participant's own words are the
// assistant's, verbatim; everyone else's are user turns holding the message in an envelope
// that says who wrote it, which no content can forge; elisions are user turns of their own.
import type { Author, Elision, Message, Projection } from "./types.js";

/** One model turn of a participant's view. */
export interface Turn {
  role: "user" | "assistant";
  /** A user turn's author: its id, a system notice's kind, or "operator"; absent on elisions and assistant turns. */
  name?: string;
  content: string;
  /** The row the turn renders; absent for an elision. */
  seq?: number;
}

/** authorName is the name a framework message carries for author: its id, a notice's kind, or "operator". */
export function authorName(a: Author): string {
  return a.id || a.kind || a.type;
}

/** sameAuthor reports whether a and b are one participant: type and id (a notice's kind); labels play no part. */
export function sameAuthor(a: Author, b: Author): boolean {
  return a.type === b.type && ident(a) === ident(b);
}

/** turns is view for viewer, one turn per message and per elision, in sequence order. */
export function turns(viewer: Author, view: Pick<Projection, "messages" | "elided">): Turn[] {
  const out: Turn[] = [];
  const elided = view.elided ?? [];
  let j = 0;
  const pushElision = (e: Elision) => out.push({ role: "user", content: elisionTag(e) });
  for (const m of view.messages ?? []) {
    for (; j < elided.length && elided[j]!.from < m.seq; j++) pushElision(elided[j]!);
    if (sameAuthor(viewer, m.author) && !m.corrects && !m.redacted) out.push({ role: "assistant", content: m.content, seq: m.seq });
    else out.push({ role: "user", name: authorName(m.author), content: envelope(m), seq: m.seq });
  }
  for (; j < elided.length; j++) pushElision(elided[j]!);
  return out;
}

const kindOrder: Record<string, number> = { operator: 0, person: 1, agent: 2, system: 3 };
const utf8 = new TextEncoder();

/** ident is an author's identity within its type: its id, or a notice's kind. */
function ident(a: Author): string {
  return a.id || a.kind || "";
}

/** compareIdentity orders authors canonically: by kind, then by id's bytes. */
function compareIdentity(a: Author, b: Author): number {
  const k = (kindOrder[a.type] ?? 9) - (kindOrder[b.type] ?? 9);
  return k !== 0 ? k : Buffer.compare(utf8.encode(ident(a)), utf8.encode(ident(b)));
}

/** readers is an aside's readers: its author and audience, once each, in canonical order. */
function readers(m: Message): Author[] {
  const all = [m.author, ...((m.audience ?? []) as Author[])].sort(compareIdentity);
  return all.filter((a, i) => i === 0 || !sameAuthor(a, all[i - 1]!));
}

function isControl(c: number): boolean {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029;
}

function escapeContent(s: string): string {
  return s.toWellFormed().replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

function escapeAttr(s: string): string {
  let out = "";
  for (const ch of s.toWellFormed()) {
    const c = ch.codePointAt(0)!;
    if (ch === "&") out += "&amp;";
    else if (ch === "<") out += "&lt;";
    else if (ch === ">") out += "&gt;";
    else if (ch === '"') out += "&quot;";
    else if (isControl(c)) out += `&#${c};`;
    else out += ch;
  }
  return out;
}

function readersAttr(list: Author[]): string {
  return list
    .map((a) => escapeAttr(a.type) + (ident(a) ? ":" + ident(a).split(",").map(escapeAttr).join("&#44;") : ""))
    .join(",");
}

/** envelope is m's content inside the <message> element that says who wrote it. */
export function envelope(m: Message): string {
  let s = `<message seq="${m.seq}`;
  if (m.parent) s += `" parent="${m.parent}`;
  if (m.corrects) s += `" corrects="${m.corrects}`;
  s += `" kind="${escapeAttr(m.author.type)}`;
  if (ident(m.author)) s += `" id="${escapeAttr(ident(m.author))}`;
  if (m.author.label) s += `" label="${escapeAttr(m.author.label)}`;
  if (m.audience && m.audience.length > 0) s += `" readers="${readersAttr(readers(m))}`;
  if (m.revised) s += `" revised="${m.revised}`;
  if (m.redacted) return s + `" redacted="true"/>`;
  return s + `">\n${escapeContent(m.content)}\n</message>`;
}

/** elisionTag is the text an elision stands as: the run's bounds, count and readers. */
export function elisionTag(e: Elision): string {
  return `<elided from="${e.from}" through="${e.through}" count="${e.count}" readers="${readersAttr(e.readers ?? [])}"/>`;
}
