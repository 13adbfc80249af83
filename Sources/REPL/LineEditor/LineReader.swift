// Reading the person's input: libedit on a terminal, plain lines otherwise.
import CEditLine
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public enum LineInput: Equatable, Sendable {
    case line(String)
    case eof
    case interrupt
}

/// What Tab offers: `candidates` replace the last `replacing` characters before the cursor
/// (a whole Food Bank name or thread title may replace several typed words).
public struct Completions: Sendable, Equatable {
    public var replacing: Int
    public var candidates: [String]
    public init(replacing: Int, candidates: [String]) {
        self.replacing = replacing
        self.candidates = candidates
    }
    public static let none = Completions(replacing: 0, candidates: [])
}

/// Called on Tab with the text before the cursor.
public typealias Completer = @Sendable (String) -> Completions

/// Where input lines come from. Continuation (a trailing backslash) is handled here, so callers
/// always get whole messages.
public protocol LineReader: AnyObject {
    func readLine(prompt: String) -> LineInput
    /// Records a submitted message in history (ignored where there is none).
    func remember(_ line: String)
    /// Called on Tab with the text before the cursor.
    var completer: Completer? { get set }
    /// Gives keys back to be read first by the next read (a key read ahead by mistake).
    func pushBack(_ text: String)
}

extension LineReader {
    public func pushBack(_ text: String) {}
}

/// Joins physical lines ending in a backslash into one message.
func joinContinuation(first: String, next: () -> String?) -> String {
    var parts: [String] = []
    var current = first
    while current.hasSuffix("\\") && !current.hasSuffix("\\\\") {
        parts.append(String(current.dropLast()))
        guard let more = next() else { current = ""; break }
        current = more
    }
    parts.append(current)
    return parts.joined(separator: "\n")
}

/// Plain reader for pipes and files: no prompt echo, no escape codes.
public final class PlainLineReader: LineReader {
    private let handle: UnsafeMutablePointer<FILE>
    public var completer: Completer?

    public init(file: UnsafeMutablePointer<FILE> = cedit_stdin()) { handle = file }

    private func rawLine() -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let n = getline(&buffer, &capacity, handle)
        guard n >= 0, let buffer else { return nil }
        var bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: n))
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self) // invalid UTF-8 becomes U+FFFD, never a crash
    }

    public func readLine(prompt: String) -> LineInput {
        guard let first = rawLine() else { return .eof }
        return .line(joinContinuation(first: first) { rawLine() })
    }

    public func remember(_ line: String) {}
}
