/**
 * A refusal in the domain's words, thrown by services and queries: what is wrong, never how HTTP
 * says it. src/http/error-handler.ts maps each kind to its status and error code, in one place.
 */

export type DomainErrorKind =
  /** The organization has no such record (a record of another organization included). */
  | "not_found"
  /** The request's records break a rule; `problems` name the fields. */
  | "invalid"
  /** The record exists already, or changed under the request, or has ended: it cannot be done as asked. */
  | "conflict"
  /** The caller asked too often; `retryAfterSeconds` says when it may again. */
  | "too_often"
  /** The sanctions list in force is older than the organization's limit: no screening on it. */
  | "sanctions_list_stale"
  /** No VIN data is loaded in this deployment. */
  | "vehicle_data_missing"
  /** A service the answer waits on (the vision model) did not answer in its time. */
  | "upstream_timeout";

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
    readonly extra: { problems?: FieldProblem[]; facts?: Record<string, unknown>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }
}
