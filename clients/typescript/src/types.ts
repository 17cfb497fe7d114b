// The service's types, named: each is the OpenAPI document's schema of the same name.
import type { components } from "./openapi.js";

type Schemas = components["schemas"];

/** Who wrote a row: its type (operator, person, agent or system), id, system kind and label. */
export type Author = Schemas["Author"];
/** One row of a desk, as the service answers it. */
export type Message = Schemas["Message"];
/** A run of rows the viewer may not read, said in their place. */
export type Elision = Schemas["Elision"];
/** A participant's view of the channel or a thread: GET …/view. */
export type Projection = Schemas["Projection"];
/**
 * A conversation's digest: bounded text standing for its history through a row (through),
 * folded only from rows every participant may read; a view asked with digest: true carries it.
 */
export type Digest = Schemas["Digest"];
/** What a participant has not seen since its state, and the state to keep next. */
export type Delta = Schemas["Delta"];
/** The state a client keeps between turns; the client owns it. */
export type State = Schemas["State"];
/** A desk and, for a thread, its root. */
export type Conversation = Schemas["Conversation"];
/** A desk the token may use, its head, and the token's participant (as). */
export type DeskInfo = Schemas["Desk"];
/** The newest threads a participant can read: GET …/threads. */
export type ThreadList = Schemas["ThreadList"];
/** A page of search hits, newest first, and the bound for older ones (0: none). */
export type SearchAnswer = Schemas["SearchAnswer"];
/** Why a stream cannot go on from its state. */
export type Reinitialize = Schemas["ReinitializeEvent"];
/**
 * Why a delta cannot go on from its state: a stream's reasons, and digest_corrected (a row
 * the digest the state records may stand for was edited or redacted since).
 */
export type DeltaReinitialize = NonNullable<Schemas["DeltaResult"]["reinitialize"]>;
/** The body of a post: content, and optionally parent, audience and key. */
export type PostBody = Schemas["AppendBody"];
/** The service's text of each row and elision of an answer, as a model reads them (rendered: true). */
export type Rendered = Schemas["Rendered"];
