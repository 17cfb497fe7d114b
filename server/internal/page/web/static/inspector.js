// The inspector page: sign-in, the desk column, up to four viewer columns, a search
// box in each, and the compose form. No framework and no build: fetch, EventSource and the DOM. Every text
// that comes from the desk is put in with textContent, never parsed as HTML.
"use strict";

(() => {
  const page = document.body;

  // ---- The API -----------------------------------------------------------------------

  class Problem extends Error {
    constructor(status, detail) {
      super(detail);
      this.status = status;
    }
  }

  // call sends one request to the service and returns its JSON (text with asText). The
  // session cookie goes with it; a request that is no GET carries the CSRF token.
  async function call(method, path, payload, { bearer, asText } = {}) {
    const headers = {};
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    if (method !== "GET" && page.dataset.csrf) headers["X-CSRF-Token"] = page.dataset.csrf;
    if (bearer) headers["Authorization"] = "Bearer " + bearer;
    const res = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    if (!res.ok) {
      let detail = res.statusText;
      try {
        const p = await res.json();
        detail = p.detail || p.title || detail;
      } catch (_) { /* not a problem document */ }
      if (res.status === 401 && !bearer) sessionEnded();
      throw new Problem(res.status, detail);
    }
    if (res.status === 204) return null;
    return asText ? res.text() : res.json();
  }

  // sessionEnded reloads the page, which then shows the sign-in form.
  function sessionEnded() {
    window.location.reload();
  }

  // ---- Participants ------------------------------------------------------------------

  const participants = new Map(); // who → author, with the newest label the desk gave it

  // who is a participant in the service's syntax (as=, audience): operator, agent:ID, ...
  function who(a) {
    switch (a.type) {
      case "operator": return "operator";
      case "system": return "system:" + a.kind;
      default: return a.type + ":" + a.id;
    }
  }
  // name is how the page writes a participant, wherever it does (an author, an aside's or
  // an elision's readers, a column, a choice): its own label, else the newest the desk gave
  // it, else who it is (operator, agent:ID), as transcript view writes one without a label.
  const name = (a) => a.label || (participants.get(who(a)) || {}).label || who(a);
  const same = (a, b) => who(a) === who(b);

  // readers are who may read m, an aside, besides the operator: its author and its
  // audience, each once, in transcript's canonical order (by kind, then id), as
  // transcript view lists them.
  const kindRank = { operator: 0, person: 1, agent: 2, system: 3 };
  const idOf = (a) => (a.type === "system" ? a.kind : a.id) || "";
  function readers(m) {
    const byWho = new Map();
    for (const a of [m.author, ...m.audience]) if (!byWho.has(who(a))) byWho.set(who(a), a);
    return [...byWho.values()].sort((a, b) => kindRank[a.type] - kindRank[b.type] || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  }

  // list is "A", "A and B" or "A, B and C".
  function list(names) {
    if (names.length < 2) return names.join("");
    return names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
  }

  function truncate(s, n) {
    s = s.replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, n - 1) + "…" : s;
  }

  // ---- Rows --------------------------------------------------------------------------

  const rowTemplate = document.getElementById("row-template");

  // rowElement is one message as a list item; viewer marks its own, onSeq makes its seq a
  // button (titled seqTitle, by default the delta's), onRedact adds a button that redacts
  // it and onEdit, on the operator's own rows, one that edits it (both the desk column's).
  // A revised row is marked edited; a redacted one is a stub, its content erased; a
  // correction (the desk column's) names the row it corrects.
  function rowElement(m, { viewer, onSeq, seqTitle, onRedact, onEdit } = {}) {
    const li = rowTemplate.content.firstElementChild.cloneNode(true);
    li.dataset.seq = m.seq;
    li.classList.add(m.author.type);
    const own = viewer && same(m.author, viewer);
    const aside = !!(m.audience && m.audience.length > 0);
    const correction = !!m.corrects;
    const redacted = !!m.redacted;
    const blank = !correction && !redacted && m.content.trim() === "";
    if (own) li.classList.add("own");
    if (aside) li.classList.add("aside");
    if (blank) li.classList.add("blank");
    if (redacted) li.classList.add("redacted");
    if (correction) li.classList.add("correction");
    if (m.revised && !correction) li.dataset.revised = m.revised;

    const seq = li.querySelector(".seq");
    if (onSeq) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "seq";
      b.textContent = "#" + m.seq;
      b.title = seqTitle || "Show the delta since #" + m.seq;
      b.addEventListener("click", () => onSeq(m.seq));
      seq.replaceWith(b);
    } else {
      seq.textContent = "#" + m.seq;
    }
    li.querySelector(".author").textContent = own ? "you (" + name(m.author) + ")" : name(m.author);
    li.querySelector(".kind").textContent = own ? "" : m.author.type === "system" ? "system · " + m.author.kind : m.author.type;
    const tags = li.querySelector(".tags");
    if (m.parent) tags.append(tag("↳ #" + m.parent));
    if (aside) tags.append(tag("aside of " + list(readers(m).map(name))));
    if (blank) tags.append(tag("blank"));
    if (correction) tags.append(tag("correction of #" + m.corrects));
    if (m.revised && !redacted && !correction) tags.append(tag("edited", "revised by #" + m.revised));
    if (redacted) tags.append(tag("redacted", m.revised ? "redacted by #" + m.revised : ""));
    li.querySelector(".content").textContent = blank ? "(blank row: no view shows it)"
      : redacted ? (correction ? "(a redaction, or an edit a redaction erased)" : "(redacted: its content was erased)") : m.content;
    const editable = !correction && !redacted && !blank;
    if (onEdit && editable && m.author.type === "operator") li.querySelector(".meta").append(editButton(() => onEdit(m.seq)));
    if (onRedact && editable) li.querySelector(".meta").append(redactButton(() => onRedact(m.seq)));
    return li;
  }

  // redactButton asks twice before it calls redact: a redaction erases for good. It is no
  // tab stop (every row of the desk has one): the desk column's redact form is the
  // keyboard's way.
  function redactButton(redact) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "redact";
    b.tabIndex = -1;
    b.textContent = "Redact";
    b.title = "Erase this row's content for good";
    b.addEventListener("click", async (ev) => {
      ev.stopPropagation();
      if (b.dataset.armed !== "true") {
        b.dataset.armed = "true";
        b.textContent = "Erase for good?";
        return;
      }
      b.disabled = true;
      try {
        await redact();
      } catch (err) {
        b.disabled = false;
        b.textContent = "Redact failed: " + err.message;
        delete b.dataset.armed;
      }
    });
    return b;
  }

  // editButton calls edit, which puts the row in the compose form to be edited there.
  function editButton(edit) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "edit";
    b.textContent = "Edit";
    b.title = "Edit this row in the form below";
    b.addEventListener("click", (ev) => {
      ev.stopPropagation();
      edit();
    });
    return b;
  }

  // corrected is m, a row, with the correction c applied, as the log applies it.
  function corrected(m, c) {
    return { ...m, content: c.redacted ? "" : c.content, redacted: !!c.redacted, revised: c.seq };
  }

  function tag(text, title) {
    const s = document.createElement("span");
    s.className = "tag";
    s.textContent = text;
    if (title) s.title = title;
    return s;
  }

  // elisionElement is the stub of rows the viewer may not read, worded by line: the line
  // transcript view writes for it (elisionLines); nothing of their content, which the view
  // never holds.
  function elisionElement(e, line) {
    const li = document.createElement("li");
    li.className = "elision";
    li.dataset.from = e.from;
    li.dataset.through = e.through;
    li.textContent = line;
    return li;
  }

  // elisionLines asks the server for the words of elided, one line each, in order: the
  // wording of transcript view, so that an elision reads alike everywhere, with each
  // reader written as the page writes it (name).
  async function elisionLines(elided) {
    if (elided.length === 0) return [];
    const named = elided.map((e) => ({ ...e, readers: e.readers.map((a) => ({ ...a, label: name(a) })) }));
    return (await call("POST", base + "/elision-lines", { elided: named })).lines;
  }

  // modelTurns shows a model input (the JSON array the model route answers) in el: one
  // block a message, indented, as text. The blocks hold the same JSON values as the bytes;
  // nothing of it is parsed as HTML.
  function modelTurns(el, text) {
    let turns;
    try {
      turns = JSON.parse(text);
    } catch (_) {
      turns = null;
    }
    if (!Array.isArray(turns)) {
      const pre = document.createElement("pre");
      pre.className = "turn";
      pre.textContent = text;
      el.replaceChildren(pre);
      return;
    }
    el.replaceChildren(...turns.map((turn, i) => {
      const pre = document.createElement("pre");
      pre.className = "turn";
      pre.dataset.index = i;
      pre.textContent = JSON.stringify(turn, null, 2);
      return pre;
    }));
  }

  // digestLine is the line transcript view writes above a digest's text: "Digest of the
  // channel through #812 · 780 messages · extractive".
  function digestLine(d) {
    const of = d.conversation.thread ? "thread #" + d.conversation.thread : "the channel";
    return "Digest of " + of + " through #" + d.through + " · " + d.rows + (d.rows === 1 ? " message" : " messages") + (d.digester ? " · " + d.digester : "");
  }

  // entries puts messages and elisions in sequence order, as a view places them.
  function entries(messages, elided) {
    const out = [];
    let i = 0;
    for (const m of messages) {
      while (i < elided.length && elided[i].from < m.seq) out.push({ elision: elided[i++] });
      out.push({ message: m });
    }
    while (i < elided.length) out.push({ elision: elided[i++] });
    return out;
  }

  function atBottom(el) {
    return el.scrollTop + el.clientHeight >= el.scrollHeight - 24;
  }

  // ---- Sign-in -----------------------------------------------------------------------

  if (page.classList.contains("sign-in")) {
    const form = document.getElementById("sign-in");
    const tokenField = document.getElementById("token");
    const error = form.querySelector(".error");
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      error.textContent = "";
      const secret = tokenField.value.trim();
      try {
        await call("POST", "/v1/session", undefined, { bearer: secret });
        tokenField.value = "";
        window.location.reload();
      } catch (err) {
        error.textContent = err.status === 403
          ? "That token is not the operator's: only an operator token may sign in."
          : err.status === 401 ? "No such token, or it was revoked." : "Sign-in failed: " + err.message;
      }
    });
    return;
  }

  // ---- The inspector -----------------------------------------------------------------

  const desk = page.dataset.desk;
  const base = "/v1/desks/" + encodeURIComponent(desk);
  const columns = document.getElementById("columns");
  const addForm = document.getElementById("add-viewer");
  const compose = document.getElementById("compose");
  const viewers = [];
  const maxViewers = 4;
  const viewerHint = document.getElementById("viewer-hint");
  // viewersChanged shows the hint on how to add a viewer while there is none, and lets the
  // add form add one while there are fewer than maxViewers.
  function viewersChanged() {
    viewerHint.hidden = viewers.length > 0;
    addForm.querySelector("button").disabled = viewers.length >= maxViewers;
  }

  document.getElementById("sign-out").addEventListener("click", async () => {
    // The live updates stop first, so that none starts a read once the session has ended.
    if (deskCol.es) deskCol.es.close();
    for (const v of viewers) if (v.es) v.es.close();
    try {
      await call("DELETE", "/v1/session");
    } finally {
      window.location.reload();
    }
  });

  function notice(el, text, cls) {
    el.textContent = text;
    el.hidden = !text;
    el.className = "notice" + (cls ? " " + cls : "");
  }

  // ---- The desk column: every row, from the rows route and its stream ----

  const deskCol = {
    el: document.getElementById("desk"),
    rows: new Map(), // seq → row
    next: -1, // before= of the next older read; 0: none older; -1: nothing read yet
    head: 0,
    open: new Set(), // roots whose thread is unfolded
    fresh: new Set(),
    found: 0, // the row a search's hit showed last (reveal)
    stick: true, // follow the newest row: the list was at its bottom when last scrolled
    loading: false,
    epoch: 0, // counts reinitializations: a read begun before the last one is dropped
    es: null,
  };
  const deskList = deskCol.el.querySelector(".rows");
  const deskNotice = deskCol.el.querySelector(".notice");
  const olderButton = deskCol.el.querySelector(".older");

  function noteAuthors(m) {
    let changed = false;
    for (const a of [m.author, ...(m.audience || [])]) {
      const k = who(a);
      const had = participants.get(k);
      if (!had || (a.label && had.label !== a.label)) {
        participants.set(k, had && !a.label ? had : a);
        changed = changed || !had;
      }
    }
    return changed;
  }

  // readOlder reads into the desk column the limit rows older than those it holds (the
  // newest, at first), and reports whether they name a participant new to the page. It
  // draws nothing; the caller holds deskCol.loading.
  async function readOlder(limit) {
    const q = deskCol.next > 0 ? "&before=" + deskCol.next : "";
    const epoch = deskCol.epoch;
    const pg = await call("GET", base + "/rows?limit=" + limit + q);
    if (epoch !== deskCol.epoch) return false; // read before a reinitialization: it may hold erased rows
    let changed = false;
    for (const m of pg.rows) {
      learn(m);
      deskCol.rows.set(m.seq, m);
      deskCol.head = Math.max(deskCol.head, m.seq);
      changed = noteAuthors(m) || changed;
    }
    deskCol.next = pg.next;
    return changed;
  }

  async function loadOlder() {
    if (deskCol.loading || deskCol.next === 0) return;
    deskCol.loading = true;
    try {
      const first = deskCol.next === -1;
      const changed = await readOlder(200);
      renderDesk(first ? "bottom" : "keep");
      if (changed) participantsChanged();
    } finally {
      deskCol.loading = false;
    }
  }

  // renderDesk draws the desk column: roots oldest first, each with its thread (every row
  // whose parents lead to it) folded under it; a reply whose root is not loaded yet stands
  // alone until it is.
  function renderDesk(scroll) {
    const oldHeight = deskList.scrollHeight;
    const oldTop = deskList.scrollTop;
    const sorted = [...deskCol.rows.values()].sort((a, b) => a.seq - b.seq);
    const top = (m) => {
      let r = m;
      while (r.parent && deskCol.rows.has(r.parent)) r = deskCol.rows.get(r.parent);
      return r;
    };
    const threads = new Map();
    const tops = [];
    for (const m of sorted) {
      const t = top(m);
      if (t === m) tops.push(m);
      else {
        if (!threads.has(t.seq)) threads.set(t.seq, []);
        threads.get(t.seq).push(m);
      }
    }
    const mark = (li, m) => {
      if (deskCol.fresh.has(m.seq)) li.classList.add("fresh");
      if (deskCol.found === m.seq) li.classList.add("found");
    };
    const items = tops.map((m) => {
      const li = rowElement(m, { onRedact, onEdit });
      mark(li, m);
      const replies = threads.get(m.seq);
      if (replies) {
        const d = document.createElement("details");
        d.className = "thread";
        d.open = deskCol.open.has(m.seq);
        d.addEventListener("toggle", () => (d.open ? deskCol.open.add(m.seq) : deskCol.open.delete(m.seq)));
        const s = document.createElement("summary");
        const newest = replies[replies.length - 1];
        s.textContent = replies.length + (replies.length === 1 ? " reply" : " replies") + ", newest #" + newest.seq + " by " + name(newest.author);
        const ol = document.createElement("ol");
        ol.className = "rows";
        for (const r of replies) {
          const rl = rowElement(r, { onRedact, onEdit });
          mark(rl, r);
          ol.append(rl);
        }
        d.append(s, ol);
        li.append(d);
      }
      return li;
    });
    deskList.replaceChildren(...items);
    deskCol.fresh.clear();
    olderButton.hidden = deskCol.next === 0;
    if (scroll === "bottom" || (scroll === "live" && deskCol.stick)) deskList.scrollTop = deskList.scrollHeight;
    else if (scroll === "keep") deskList.scrollTop = deskList.scrollHeight - oldHeight + oldTop;
  }

  deskList.addEventListener("scroll", () => {
    deskCol.stick = atBottom(deskList);
    if (deskList.scrollTop < 40 && deskCol.next > 0) loadOlder();
  });
  olderButton.addEventListener("click", () => loadOlder());

  // onRedact redacts row seq as the operator; the row's stream then shows the stub.
  async function onRedact(seq) {
    await call("DELETE", base + "/messages/" + seq);
  }

  // The desk column's redact form: a row's number, then a second submit to confirm.
  const redactForm = deskCol.el.querySelector(".redact-row");
  const redactStatus = redactForm.querySelector(".status");
  let armed = null; // the seq the next submit redacts
  redactForm.seq.addEventListener("input", () => {
    armed = null;
    redactStatus.textContent = "";
  });
  redactForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const seq = Number(redactForm.seq.value);
    if (armed !== seq) {
      armed = seq;
      redactStatus.textContent = "Submit again to erase #" + seq + " for good.";
      return;
    }
    armed = null;
    try {
      await onRedact(seq);
      redactStatus.textContent = "#" + seq + " redacted.";
      redactForm.seq.value = "";
    } catch (err) {
      redactStatus.textContent = "Could not redact #" + seq + ": " + err.message;
    }
  });

  // applyToDesk applies c, a correction the desk's stream sent, to the rows the desk column
  // holds: its target, and for a redaction every earlier correction of it.
  function applyToDesk(c) {
    const target = deskCol.rows.get(c.corrects);
    if (target && (target.revised || 0) < c.seq) deskCol.rows.set(target.seq, corrected(target, c));
    if (!c.redacted) return;
    for (const r of deskCol.rows.values()) {
      if (r.corrects === c.corrects && r.seq < c.seq) deskCol.rows.set(r.seq, { ...r, content: "", redacted: true });
    }
  }

  function followDesk() {
    const es = new EventSource(base + "/rows/events?after=" + deskCol.head);
    deskCol.es = es;
    es.addEventListener("row", (ev) => {
      const m = JSON.parse(ev.data);
      learn(m);
      if (m.corrects) {
        applyToDesk(m);
        for (const box of searchBoxes) box.refresh();
        if (m.redacted && m.corrects === editing) editGone(m.corrects);
        const target = deskCol.rows.get(m.corrects);
        for (const v of viewers) v.corrected(m, target ? target.parent || 0 : undefined);
      }
      deskCol.rows.set(m.seq, m);
      deskCol.head = Math.max(deskCol.head, m.seq);
      deskCol.fresh.add(m.seq);
      renderDesk("live");
      if (noteAuthors(m)) participantsChanged();
      if (m.parent) threadsChanged();
      for (const v of viewers) if (same(v.viewer, m.author)) v.refresh(); // the stream leaves out a viewer's own rows
    });
    // Each time the stream opens, reconnections included, every column reads its digest
    // again: the stream tells of the digests stored from then on, and one stored before
    // (after the column's read, or while the stream was down) would otherwise wait for the
    // next.
    es.addEventListener("open", () => {
      for (const v of viewers) v.refreshDigest();
    });
    // A digest changed: the columns of its conversation read theirs again. The event holds
    // no text, only the conversation.
    es.addEventListener("digest", (ev) => {
      const thread = JSON.parse(ev.data).conversation.thread || 0;
      for (const v of viewers) if (v.thread === thread) v.refreshDigest();
    });
    es.addEventListener("reinitialize", async (ev) => {
      es.close();
      const reason = JSON.parse(ev.data).reason;
      for (const v of viewers) v.showDigest(null); // it may hold what a redaction in the gap erased; the new stream's open reads it again
      notice(deskNotice, "Reinitialized (" + reason + "): the rows were read again from the newest.", "reinit");
      for (const box of searchBoxes) box.refresh(); // a correction in the gap never comes
      deskCol.epoch++; // a read in flight is dropped: it may hold rows the gap erased
      deskCol.rows.clear();
      deskCol.next = -1;
      deskCol.head = 0;
      renderDesk("bottom"); // nothing drawn before the gap stays on the page
      while (deskCol.loading) await new Promise((r) => setTimeout(r, 50));
      await loadOlder();
      followDesk();
    });
    es.addEventListener("error", () => {
      if (es.readyState === EventSource.CLOSED) notice(deskNotice, "Live updates stopped: reload the page.", "reinit");
    });
  }

  // ---- Participants and threads in the forms ----

  const kindOrder = { agent: 0, person: 1, operator: 2, system: 3 };
  function sortedParticipants() {
    return [...participants.values()].sort((a, b) => kindOrder[a.type] - kindOrder[b.type] || name(a).localeCompare(name(b)));
  }

  function participantsChanged() {
    const select = addForm.participant;
    const chosen = select.value;
    select.replaceChildren(...sortedParticipants().map((a) => new Option(name(a) + " (" + who(a) + ")", who(a))));
    if (chosen && participants.has(chosen)) select.value = chosen;
    else if (!chosen) viewerThreads();

    const choices = compose.querySelector(".choices");
    const checked = new Set([...choices.querySelectorAll("input:checked")].map((i) => i.value));
    choices.replaceChildren(...sortedParticipants().filter((a) => a.type !== "operator").map((a) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.name = "audience";
      box.value = who(a);
      box.checked = checked.has(box.value);
      label.append(box, " " + name(a));
      return label;
    }));
  }

  // fillThreads puts the threads list as= viewer can read into select, after "Channel".
  async function fillThreads(select, viewer) {
    const q = viewer && viewer !== "operator" ? "&as=" + encodeURIComponent(viewer) : "";
    const list = await call("GET", base + "/threads?limit=50" + q);
    const options = [new Option("Channel", "0")];
    for (const t of list.threads) {
      const r = t.root;
      const label = "Thread #" + r.seq + " · " + name(r.author) + ": " + truncate(r.content, 36) + " (" + t.replies + ")";
      options.push(new Option(label, String(r.seq)));
    }
    const chosen = select.value; // read now: it may have changed during the request
    select.replaceChildren(...options);
    if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  }

  const viewerThreads = () => fillThreads(addForm.conversation, addForm.participant.value);
  addForm.participant.addEventListener("change", viewerThreads);

  let threadsTimer = 0;
  function threadsChanged() {
    clearTimeout(threadsTimer);
    threadsTimer = setTimeout(() => {
      fillThreads(compose.conversation);
      viewerThreads();
    }, 300);
  }

  // ---- Search: a box in each column, as that column's participant ----

  const searchTemplate = document.getElementById("search-template");
  const searchBoxes = new Set();

  // What the page learned of corrections, from the rows it read and the desk's stream. An
  // answer read before a correction committed holds the row as it was: a hit that is no
  // longer current is never shown.
  const erased = new Set(); // rows whose content a redaction erased
  const revisedBy = new Map(); // row → the newest correction of it the page knows of

  // learn notes what m, a row of the desk as read, tells of corrections.
  function learn(m) {
    const target = m.corrects || m.seq;
    const newest = m.corrects ? m.seq : m.revised || 0;
    if (newest > (revisedBy.get(target) || 0)) revisedBy.set(target, newest);
    if (m.redacted) erased.add(target);
  }

  // current reports whether m, a hit, is its row as the page last learned it: not erased,
  // and revised by no newer correction than the one m shows.
  const current = (m) => !m.redacted && !erased.has(m.seq) && (revisedBy.get(m.seq) || 0) <= (m.revised || 0);

  // SearchBox is a search form and its hits, put after anchor: a search of the whole desk
  // as viewer (null: the operator, who reads every row), newest first, More for the next
  // page. A hit shows its seq, author and content (as text); its seq shows the row in the
  // desk column. A correction or a reinitialization asks the search again, as deep as More
  // had read; a hit that is not current is never drawn, whatever answer brought it.
  class SearchBox {
    constructor(anchor, viewer) {
      this.viewer = viewer;
      this.el = searchTemplate.content.firstElementChild.cloneNode(true);
      anchor.after(this.el);
      this.form = this.el.querySelector("form");
      this.hits = this.el.querySelector(".hits");
      this.list = this.el.querySelector(".hit-list");
      this.status = this.hits.querySelector(".status");
      this.more = this.el.querySelector(".more");
      this.q = ""; // the words searched for; "": no search active
      this.shown = []; // the hits drawn, newest first
      this.next = 0; // before= of the page after them; 0: none
      this.pages = 0; // pages read into shown
      this.depth = 0; // pages the user asked for: the first, and one a More
      this.stale = false; // the desk changed since shown was read
      this.asked = 0; // loads started: the answer to an older one is let go
      const label = viewer ? name(viewer) : "the operator";
      this.form.q.placeholder = "Search the desk as " + label;
      this.form.q.setAttribute("aria-label", "Search the desk as " + label + ": the rows holding every word");
      this.list.setAttribute("aria-label", "Rows " + label + " may read holding every word, newest first");
      this.form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        this.q = this.form.q.value;
        this.depth = 1;
        this.load(false);
      });
      this.more.addEventListener("click", () => {
        this.depth++;
        this.load(!this.stale);
      });
      this.el.querySelector(".done").addEventListener("click", () => this.clear());
      searchBoxes.add(this);
    }

    path(before) {
      let path = base + "/search?q=" + encodeURIComponent(this.q);
      if (this.viewer) path += "&as=" + encodeURIComponent(who(this.viewer));
      if (before) path += "&before=" + before;
      return path;
    }

    // load reads and draws the first depth pages of hits: afresh, or with keep only the
    // pages after those drawn, which are current. A load started later lets this one go.
    async load(keep) {
      const asked = ++this.asked;
      let hits = keep ? this.shown : [];
      let next = keep ? this.next : 0;
      let pages = keep ? this.pages : 0;
      this.hits.hidden = false;
      try {
        while (pages < this.depth && (pages === 0 || next)) {
          const ans = await call("GET", this.path(next));
          if (asked !== this.asked) return;
          hits = hits.concat(ans.messages);
          next = ans.next;
          pages++;
        }
      } catch (err) {
        if (asked === this.asked) this.status.textContent = "Could not search: " + err.message;
        return;
      }
      Object.assign(this, { shown: hits, next, pages, stale: false });
      this.draw();
    }

    // draw shows the hits that are current.
    draw() {
      this.shown = this.shown.filter(current);
      this.list.replaceChildren(...this.shown.map((m) => this.hitElement(m)));
      this.more.hidden = this.next === 0;
      const n = this.shown.length;
      this.status.textContent = n === 0 ? "No row holds every word." : n + (n === 1 ? " row" : " rows") + ", newest first" + (this.next ? "; More shows older ones." : ".");
    }

    // hitElement is a hit as the column's rows look, its seq showing it in the desk column.
    hitElement(m) {
      const show = (seq) => reveal(seq).catch((err) => (this.status.textContent = "Could not show #" + seq + ": " + err.message));
      const li = rowElement(m, { viewer: this.viewer, onSeq: show, seqTitle: "Show #" + m.seq + " in the desk column" });
      li.classList.add("hit");
      return li;
    }

    // refresh is told the desk changed under the hits (a correction, a reinitialization):
    // the hits the page knows are not current go at once, and the search is asked again,
    // as deep as before, letting go of any answer on its way.
    refresh() {
      if (!this.q) return;
      this.stale = true;
      if (!this.shown.every(current)) this.draw();
      this.load(false);
    }

    clear() {
      this.asked++;
      Object.assign(this, { q: "", shown: [], next: 0, pages: 0, depth: 0, stale: false });
      this.list.replaceChildren();
      this.hits.hidden = true;
      this.form.q.value = "";
    }

    close() {
      searchBoxes.delete(this);
    }
  }

  const revealReach = 4096; // rows reveal reads at most, beyond those the desk column holds

  // reveal shows row seq in the desk column: older rows are read until it is among them
  // (the column drawn once, after), its thread is unfolded, and it is scrolled to and
  // marked (found). A row more than revealReach rows older than those the column holds is
  // not read to: the column says it is too far back.
  async function reveal(seq) {
    while (deskCol.loading) await new Promise((r) => setTimeout(r, 50));
    const far = () => !deskCol.rows.has(seq) && deskCol.next > 0 && deskCol.next - seq > revealReach;
    let changed = false;
    let read = 0;
    if (!far()) {
      deskCol.loading = true;
      try {
        for (; !deskCol.rows.has(seq) && deskCol.next !== 0 && read < revealReach; read += 512) changed = (await readOlder(512)) || changed;
      } finally {
        deskCol.loading = false;
      }
    }
    if (changed) participantsChanged();
    const m = deskCol.rows.get(seq);
    if (!m) {
      if (read) renderDesk("keep");
      notice(deskNotice, "#" + seq + " is too far back to show here: more than " + revealReach + " rows older than those the column holds.", "far");
      return;
    }
    if (deskNotice.classList.contains("far")) notice(deskNotice, "");
    deskCol.found = seq;
    for (let r = m; r.parent && deskCol.rows.has(r.parent); ) {
      r = deskCol.rows.get(r.parent);
      deskCol.open.add(r.seq);
    }
    renderDesk("keep");
    const li = deskList.querySelector('li[data-seq="' + seq + '"]');
    if (li) li.scrollIntoView({ block: "center" });
  }

  // ---- Viewer columns: one participant's view of one conversation, live ----

  const viewerTemplate = document.getElementById("viewer-template");

  class ViewerColumn {
    constructor(viewer, thread) {
      this.viewer = viewer;
      this.thread = thread;
      this.show = "rows"; // rows, openai or anthropic
      this.since = null; // a delta's watermark while the column shows a delta
      this.es = null;
      this.el = viewerTemplate.content.firstElementChild.cloneNode(true);
      this.el.dataset.viewer = who(viewer);
      this.el.dataset.thread = thread;
      const where = thread ? "thread #" + thread : "channel";
      this.el.setAttribute("aria-label", name(viewer) + " sees the " + where);
      this.el.querySelector(".who").textContent = name(viewer);
      this.el.querySelector(".where").textContent = "sees the " + where;
      this.list = this.el.querySelector(".rows");
      this.stick = true; // follow the newest row: the list was at its bottom when last scrolled
      this.list.addEventListener("scroll", () => (this.stick = atBottom(this.list)));
      this.list.setAttribute("aria-label", name(viewer) + "'s view, oldest first");
      this.model = this.el.querySelector(".model");
      this.notice = this.el.querySelector(".notice");
      this.digest = this.el.querySelector(".digest");
      this.asked = 0; // reads of the view or the model input begun: the answer to an older one is let go
      this.digestAsked = 0; // reads begun that bring the digest: likewise
      this.deltaForm = this.el.querySelector(".delta");
      this.back = this.deltaForm.querySelector(".back");
      this.search = new SearchBox(this.el.querySelector(".controls"), viewer);

      this.el.querySelector(".close").addEventListener("click", () => this.close());
      for (const b of this.el.querySelectorAll(".switch button")) {
        b.addEventListener("click", () => {
          this.show = b.dataset.show;
          if (this.show !== "rows") this.since = null;
          this.refresh();
        });
      }
      this.deltaForm.addEventListener("submit", (ev) => {
        ev.preventDefault();
        this.showDelta(Number(this.deltaForm.since.value));
      });
      this.back.addEventListener("click", () => {
        this.since = null;
        this.refresh();
      });
      columns.append(this.el);
      this.el.scrollIntoView({ block: "nearest", inline: "nearest" });
    }

    query() {
      return "as=" + encodeURIComponent(who(this.viewer)) + (this.thread ? "&thread=" + this.thread : "");
    }

    showDelta(since) {
      this.since = since;
      this.show = "rows";
      this.deltaForm.since.value = since;
      this.refresh();
    }

    // refresh draws the column afresh in its mode: the view's rows under the
    // conversation's digest, the model input of the view (the digest first), or the delta
    // since the chosen point (a delta carries no digest). An answer to a read begun before
    // a later one is let go: it may hold what a redaction since erased.
    async refresh() {
      for (const b of this.el.querySelectorAll(".switch button")) b.setAttribute("aria-pressed", String(b.dataset.show === this.show));
      this.back.hidden = this.since === null;
      const asked = ++this.asked;
      const digestAsked = ++this.digestAsked;
      try {
        if (this.show !== "rows") {
          this.showDigest(null);
          this.list.hidden = true;
          this.list.replaceChildren(); // kept hidden, it would keep what a redaction since erased
          this.messages = null;
          const text = await call("GET", base + "/model?format=" + this.show + "&digest=true&" + this.query(), undefined, { asText: true });
          if (asked !== this.asked) return;
          modelTurns(this.model, text);
          this.model.hidden = false;
          notice(this.notice, "The input of " + name(this.viewer) + "'s model for this view (" + (this.show === "openai" ? "OpenAI" : "Anthropic") +
            " messages): the JSON transcript view --format prints, one message a block, indented.");
          return;
        }
        this.model.hidden = true;
        this.model.replaceChildren(); // kept hidden, it would keep what a redaction since erased
        this.list.hidden = false;
        if (this.since !== null) {
          this.showDigest(null);
          return await this.drawDelta(asked);
        }
        const p = await call("GET", base + "/view?digest=true&" + this.query());
        const lines = await elisionLines(p.elided || []);
        if (asked !== this.asked) return;
        if (digestAsked === this.digestAsked) this.showDigest(p.digest);
        this.draw(entries(p.messages, p.elided || []), lines);
        if (!this.notice.classList.contains("reinit")) notice(this.notice, "");
        if (!this.es) this.follow(p.head);
      } catch (err) {
        if (asked !== this.asked) return;
        // Unread, what the column showed may hold what a redaction erased.
        this.showDigest(null);
        this.model.replaceChildren();
        this.list.replaceChildren();
        this.messages = null;
        notice(this.notice, "Could not read the view: " + err.message, "reinit");
      }
    }

    // showDigest shows d, the conversation's digest as the view gave it, above the rows (its
    // text as text); null or undefined: none. A list that followed the newest row still does.
    showDigest(d) {
      this.shownDigest = d || null;
      this.digest.hidden = !d;
      this.digest.querySelector(".digest-line").textContent = d ? digestLine(d) : "";
      this.digest.querySelector(".digest-text").textContent = d ? d.text : "";
      if (d) this.digest.dataset.through = d.through;
      else delete this.digest.dataset.through;
      if (this.stick) this.list.scrollTop = this.list.scrollHeight;
    }

    // refreshDigest reads the conversation's digest again, with the column's view (as its
    // participant), and shows it: the desk's stream said it changed, or a correction may
    // have deleted it. A column showing the model input reads that again; a delta has none.
    async refreshDigest() {
      if (this.since !== null) return;
      if (this.show !== "rows") return this.refresh();
      const asked = ++this.digestAsked;
      try {
        const p = await call("GET", base + "/view?digest=true&" + this.query());
        if (asked === this.digestAsked && this.show === "rows" && this.since === null) this.showDigest(p.digest);
      } catch (err) {
        if (asked !== this.digestAsked) return;
        this.showDigest(null); // unread, it may hold what a redaction erased
        notice(this.notice, "Could not read the digest: " + err.message, "reinit");
      }
    }

    // digestStandsFor tells whether the digest shown may stand for row seq, whose parent
    // is parent (undefined: the page does not hold the row): a correction of that row
    // deleted it, as the store deletes every digest of the row's channel and of its
    // parent's thread whose through is at or above the row.
    digestStandsFor(seq, parent) {
      if (!this.shownDigest || this.shownDigest.through < seq) return false;
      return this.thread === 0 || parent === undefined || parent === this.thread;
    }

    // corrected is told of c, a correction the desk's stream sent, of a row whose parent is
    // parent (undefined: unknown). A digest it deleted goes at once and the conversation's
    // digest is read again, a read begun before let go. A redaction also takes at once the
    // model input or delta shown, and the column is read again.
    corrected(c, parent) {
      const stale = this.digestStandsFor(c.corrects, parent);
      if (stale) this.showDigest(null);
      if (c.redacted) {
        if (this.show !== "rows") this.model.replaceChildren();
        else if (this.since !== null) this.draw([], []);
        return this.refresh();
      }
      if (stale) this.refreshDigest();
    }

    // drawDelta draws the delta since the chosen point, unless a read begun after asked,
    // the refresh that calls it, has since begun.
    async drawDelta(asked) {
      const state = { conversation: { desk, thread: this.thread }, watermark: this.since };
      const ans = await call("POST", base + "/delta?as=" + encodeURIComponent(who(this.viewer)), { state, conversation: { thread: this.thread } });
      if (asked !== this.asked) return;
      if (ans.reinitialize) {
        this.draw([]);
        notice(this.notice, "No delta since #" + this.since + ": the state would reinitialize (" + ans.reinitialize + ").", "reinit");
        return;
      }
      const d = ans.delta;
      const lines = await elisionLines(d.elided || []);
      if (asked !== this.asked) return;
      this.draw(entries(d.messages, d.elided || []), lines);
      notice(this.notice, "Delta since #" + this.since + ": " + d.messages.length + (d.messages.length === 1 ? " message" : " messages") +
        ", " + (d.elided || []).length + " elided; the next turn's watermark is #" + d.next.watermark + ".");
    }

    // draw shows items; lines words their elisions, in order.
    draw(items, lines) {
      const onSeq = (seq) => this.showDelta(seq);
      this.messages = new Map(items.filter((it) => it.message).map((it) => [it.message.seq, it.message]));
      let i = 0;
      this.list.replaceChildren(...items.map((it) => (it.message ? rowElement(it.message, { viewer: this.viewer, onSeq }) : elisionElement(it.elision, lines[i++]))));
      this.list.scrollTop = this.list.scrollHeight;
    }

    // follow opens the column's stream from the view's head: what the participant has not
    // seen, never its own rows (the desk column's stream tells the column of those).
    follow(head) {
      const es = new EventSource(base + "/events?" + this.query() + "&after=" + head);
      this.es = es;
      const live = (el, key) => {
        if (this.show !== "rows" || this.since !== null) return this.refresh();
        if (this.list.querySelector(key)) return;
        el.classList.add("fresh");
        this.list.append(el);
        if (this.stick) this.list.scrollTop = this.list.scrollHeight;
      };
      // Events are shown in the order they came, an elision's after its words arrive.
      let shown = Promise.resolve();
      const inOrder = (show) => {
        shown = shown.then(show).catch((err) => notice(this.notice, "Could not show an event: " + err.message, "reinit"));
      };
      es.addEventListener("message", (ev) => {
        const m = JSON.parse(ev.data);
        inOrder(() => {
          if (this.messages) this.messages.set(m.seq, m);
          live(rowElement(m, { viewer: this.viewer, onSeq: (seq) => this.showDelta(seq) }), '[data-seq="' + m.seq + '"]');
        });
      });
      es.addEventListener("correction", (ev) => {
        const c = JSON.parse(ev.data);
        inOrder(() => this.correct(c));
      });
      es.addEventListener("elided", (ev) => {
        const e = JSON.parse(ev.data);
        inOrder(async () => live(elisionElement(e, (await elisionLines([e]))[0]), '[data-from="' + e.from + '"]'));
      });
      es.addEventListener("reinitialize", (ev) => {
        es.close();
        this.es = null;
        notice(this.notice, "Reinitialized (" + JSON.parse(ev.data).reason + "): the view was read again and the stream restarted from its head.", "reinit");
        this.refresh();
        this.search.refresh();
      });
      es.addEventListener("error", () => {
        if (es.readyState === EventSource.CLOSED) notice(this.notice, "Live updates stopped: reload the page.", "reinit");
      });
    }

    // correct updates in place the row c, a correction the stream sent, corrects; a column
    // that shows something else than the view's rows is drawn afresh.
    correct(c) {
      if (this.show !== "rows" || this.since !== null) return this.refresh();
      const m = this.messages && this.messages.get(c.corrects);
      const li = this.list.querySelector('[data-seq="' + c.corrects + '"]');
      if (!m || !li || (m.revised || 0) >= c.seq) return; // not shown, or shown as corrected already
      const fixed = corrected(m, c);
      this.messages.set(m.seq, fixed);
      const el = rowElement(fixed, { viewer: this.viewer, onSeq: (seq) => this.showDelta(seq) });
      el.classList.add("fresh");
      li.replaceWith(el);
    }

    close() {
      if (this.es) this.es.close();
      this.search.close();
      this.el.remove();
      viewers.splice(viewers.indexOf(this), 1);
      viewersChanged();
    }
  }

  addForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (viewers.length >= maxViewers) return;
    const viewer = participants.get(addForm.participant.value);
    if (!viewer) return;
    const v = new ViewerColumn(viewer, Number(addForm.conversation.value));
    viewers.push(v);
    v.refresh();
    viewersChanged();
  });

  // ---- Compose: a post, or an edit of one of the operator's rows ----

  const composeTitle = document.getElementById("compose-title");
  const composeStatus = compose.querySelector(".status");
  const composeSubmit = compose.querySelector("button[type=submit]");
  const cancelEdit = compose.querySelector(".cancel");
  let editing = 0; // the row the form edits; 0: it posts

  // onEdit puts row seq, one of the operator's, in the form: its content to be edited, the
  // conversation and the aside's readers, which an edit keeps, not to be chosen.
  function onEdit(seq) {
    const m = deskCol.rows.get(seq);
    if (!m) return;
    setEditing(seq);
    compose.content.value = m.content;
    composeStatus.textContent = "";
    compose.content.focus();
  }

  function setEditing(seq) {
    editing = seq;
    composeTitle.textContent = seq ? "Edit #" + seq + ", the operator's" : "Post as the operator";
    composeSubmit.textContent = seq ? "Save the edit" : "Post";
    cancelEdit.hidden = !seq;
    compose.conversation.disabled = !!seq;
    compose.querySelector(".audience").disabled = !!seq;
  }

  // editGone leaves the edit of row seq, which a redaction erased.
  function editGone(seq) {
    setEditing(0);
    compose.content.value = "";
    composeStatus.textContent = "#" + seq + " was redacted: there is nothing to edit.";
  }

  cancelEdit.addEventListener("click", () => {
    setEditing(0);
    compose.content.value = "";
    composeStatus.textContent = "";
  });

  compose.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const status = composeStatus;
    if (editing) {
      const seq = editing;
      try {
        const c = await call("PATCH", base + "/messages/" + seq, { content: compose.content.value });
        setEditing(0);
        compose.content.value = "";
        status.textContent = "Edited #" + seq + " (the edit is #" + c.seq + ").";
      } catch (err) {
        status.textContent = "Not edited: " + err.message;
      }
      return;
    }
    const payload = { content: compose.content.value };
    const parent = Number(compose.conversation.value);
    if (parent) payload.parent = parent;
    // Each reader as the Author the desk names it by, label and all, so that the aside's
    // stubs name its readers as the desk does.
    const audience = [...compose.querySelectorAll(".choices input:checked")].map((i) => participants.get(i.value) || i.value);
    if (audience.length) payload.audience = audience;
    try {
      const m = await call("POST", base + "/messages", payload);
      compose.content.value = "";
      for (const box of compose.querySelectorAll(".choices input:checked")) box.checked = false;
      status.textContent = "Posted #" + m.seq + (m.audience ? " as an aside to " + list(m.audience.map(name)) : " to the whole desk") + ".";
    } catch (err) {
      status.textContent = "Not posted: " + err.message;
    }
  });

  // loadParticipants adds every participant of the desk, also who never wrote a row the
  // page has read (a token's, an aside's reader), with its newest label.
  async function loadParticipants() {
    const answer = await call("GET", base + "/participants");
    for (const a of answer.participants) {
      const had = participants.get(who(a));
      if (!had || (a.label && !had.label)) participants.set(who(a), a);
    }
  }

  // ---- Start ----

  new SearchBox(redactForm, null);

  (async () => {
    try {
      await Promise.all([loadOlder(), loadParticipants()]);
      followDesk();
      participantsChanged();
      await Promise.all([fillThreads(compose.conversation), viewerThreads()]);
    } catch (err) {
      notice(deskNotice, "Could not read the desk: " + err.message, "reinit");
    }
  })();
})();
