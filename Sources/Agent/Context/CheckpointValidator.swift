// Local checks a model-written checkpoint must pass before it may replace the messages it summarises.

/// Why a summary was refused.
public enum CheckpointRejection: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    /// The summary ended because it reached its output limit (finish reason length / max_tokens).
    case cutOff
    /// Most of the summary is chat-template markup (`<|im_end|>user` …), not a summary.
    case markup
    /// The summary repeats itself (a model stuck in a loop).
    case repetitive
    /// A few words standing for a long stretch of conversation.
    case tooShort(characters: Int)
    case tooLong(characters: Int, limit: Int)
    /// Longer than the messages it would replace.
    case longerThanOriginal(characters: Int, original: Int)
    /// The summary cites ids that neither the replaced messages nor the database know.
    case unknownIDs([String])

    public var description: String {
        switch self {
        case .empty: return "the summary was empty"
        case .cutOff: return "the summary was cut off at its length limit"
        case .markup: return "the summary was mostly chat-template markup"
        case .repetitive: return "the summary repeated itself"
        case .tooShort(let n): return "the summary was implausibly short (\(n) characters)"
        case .longerThanOriginal(let n, let original): return "the summary was longer than what it summarised (\(n) characters for \(original))"
        case .tooLong(let n, let limit): return "the summary was too long (\(n) characters, limit \(limit))"
        case .unknownIDs(let ids): return "the summary cited \(ids.count) id(s) that do not exist"
        }
    }
}

public enum CheckpointValidator {
    /// Summaries under this many characters are refused when they stand for `shortFor` or more.
    static let minimumCharacters = 40
    static let shortFor = 2_000
    /// Markup above this share of the summary's non-space text refuses it.
    static let markupLimit = 0.25

    /// Accepts `summary` when it is non-empty, was not cut off (`cutOff`: the model stopped at
    /// its output limit), is not mostly chat-template markup, does not repeat itself, is neither
    /// implausibly short for what it replaces nor longer than it (nor over `maxCharacters`), and
    /// every UUID it cites occurs in `replacedText` (the messages it replaces, with the earlier
    /// checkpoint) or passes `idExists` (the journal's entries and foods). Returns the trimmed summary.
    public static func validate(_ summary: String, replacedText: String, maxCharacters: Int,
                                idExists: (@Sendable (String) -> Bool)?, cutOff: Bool = false) -> Result<String, CheckpointRejection> {
        let trimmed = summary.trimmingSpaces()
        guard !trimmed.isEmpty else { return .failure(.empty) }
        guard !cutOff else { return .failure(.cutOff) }
        guard TemplateMarkers.markupFraction(of: trimmed) <= markupLimit else { return .failure(.markup) }
        guard !Repetition.isRepetitive(trimmed) else { return .failure(.repetitive) }
        let n = trimmed.count
        let original = replacedText.count
        guard n >= minimumCharacters || original < shortFor else { return .failure(.tooShort(characters: n)) }
        guard n <= maxCharacters else { return .failure(.tooLong(characters: n, limit: maxCharacters)) }
        guard n <= max(1_000, original) else { return .failure(.longerThanOriginal(characters: n, original: original)) }
        let cited = UUIDScanner.ids(in: trimmed)
        guard !cited.isEmpty else { return .success(trimmed) }
        let known = Set(UUIDScanner.ids(in: replacedText))
        let unknown = cited.filter { !known.contains($0) && !(idExists?($0) ?? false) }
        return unknown.isEmpty ? .success(trimmed) : .failure(.unknownIDs(unknown))
    }
}

/// Finds UUIDs (8-4-4-4-12 hex digits) in text, lowercased, without regular expressions.
public enum UUIDScanner {
    private static let groups = [8, 4, 4, 4, 12]

    static func isHex(_ b: UInt8) -> Bool { (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102) }

    /// Distinct ids in order of first appearance.
    public static func ids(in text: String) -> [String] {
        var out: [String] = []
        var seen = Set<String>()
        var utf8 = Array(text.utf8)
        let count = utf8.count
        var i = 0
        while i + 36 <= count {
            // A match must not continue a longer hex/dash run on the left.
            if isHex(utf8[i]) && (i == 0 || !(isHex(utf8[i - 1]) || utf8[i - 1] == 45)), let end = match(utf8, at: i) {
                if end == count || !(isHex(utf8[end]) || utf8[end] == 45) {
                    for k in i..<end where utf8[k] >= 65 && utf8[k] <= 70 { utf8[k] += 32 }
                    let id = String(decoding: utf8[i..<end], as: UTF8.self)
                    if seen.insert(id).inserted { out.append(id) }
                    i = end
                    continue
                }
            }
            i += 1
        }
        return out
    }

    private static func match(_ b: [UInt8], at start: Int) -> Int? {
        var i = start
        for (g, length) in groups.enumerated() {
            if g > 0 {
                guard i < b.count, b[i] == 45 else { return nil }
                i += 1
            }
            for _ in 0..<length {
                guard i < b.count, isHex(b[i]) else { return nil }
                i += 1
            }
        }
        return i
    }
}
