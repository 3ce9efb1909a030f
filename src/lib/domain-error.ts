/**
 * A refusal in the domain's words, thrown by services and queries: what is wrong, never how HTTP
 * says it. src/http/error-handler.ts maps each kind to its status and error code, in one place.
 */

export type DomainErrorKind =
  /** The organization has no such record (a record of another organization included). */
  | "not_found"
  /** The request's records break a rule; `problems` name the fields. */
  | "invalid";

/** One field's problem: its path in the request, a code a client can branch on, and the sentence. */
export interface FieldProblem {
  path: string;
  code: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** `facts`: figures a client needs to act on the refusal, sent beside the message. */
    readonly extra: { problems?: FieldProblem[]; facts?: Record<string, unknown> } = {},
  ) {
    super(message);
  }
}
