// Errors the agent reports: a class for programs and one line for the person.
import SQLiteKit

/// A failure of a run or a refused request. `line` says what happened and what to do next, and
/// never carries keys or journal content.
public struct AgentError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case threadBusy = "thread_busy"
        case threadNotFound = "thread_not_found"
        case nothingToContinue = "nothing_to_continue"
        case timeout
        case rateLimited = "rate_limited"
        case providerUnavailable = "provider_unavailable"
        case providerRejected = "provider_rejected"
        case configuration
        case contextOverflow = "context_overflow"
        case unknownOutcome = "unknown_outcome"
        case turnLimit = "turn_limit"
        case answerTooLong = "answer_too_long"
        case storage
        case cancelled
        case interrupted
        case `internal`
    }
    public var kind: Kind
    public var line: String
    public init(_ kind: Kind, _ line: String) {
        self.kind = kind
        self.line = line
    }
    public var description: String { line }

    /// What the person reads when a run completed without any text.
    public static let emptyAnswerLine = "The model sent an empty answer; ask again, or try another model (ofj doctor checks a local server's setup)."

    static let busy = AgentError(.threadBusy, "This thread is still answering; wait for it to finish, or stop it (Ctrl-C) and try again.")

    /// Wraps a storage failure. SQLiteKit descriptions never include bound values.
    static func storage(_ error: any Error) -> AgentError {
        if let e = error as? AgentError { return e }
        if let db = error as? DatabaseError, db.isBusy {
            return AgentError(.storage, "The database is locked by another ofj process; close it or try again in a moment.")
        }
        if let db = error as? DatabaseError, db.isDamaged {
            return AgentError(.storage, "Could not save: " + DatabaseError.damagedLine + ".")
        }
        return AgentError(.storage, "Could not save the conversation (\(error)); check disk space and permissions, then try again.")
    }
}
