// @sharedesk/transcript: a typed client for transcript serve. A Desk is one desk as the
// token's participant: its view, its posts, its deltas between turns, search, corrections
// and a live event stream that resumes by itself.
export { Desk } from "./desk.js";
export type { DeskOptions, RequestOptions, ViewOptions, PostOptions, EditOptions, RedactOptions, DeltaOptions, DeltaAnswer, ThreadsOptions, SearchOptions, AsOption } from "./desk.js";
export {
  ProblemError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APITimeoutError,
} from "./problem.js";
export type { DeskEvent, EventsOptions } from "./events.js";
export { NotAnEventStreamError } from "./events.js";
export { takeTurn, firstRead, notePresent, presentSetLimit, replyKey } from "./turn.js";
export type { Reply, TurnOptions, TurnResult } from "./turn.js";
export { turns, withCorrections, viewTurns, authorName, sameAuthor } from "./mapping.js";
export type { Turn, RenderedRows } from "./mapping.js";
export { tokenId } from "./tokenid.js";
export type * from "./types.js";
export type { paths, components } from "./openapi.js";
