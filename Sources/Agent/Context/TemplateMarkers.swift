// Chat-template markers (`<|im_start|>`, `<start_of_turn>`, `[INST]` …) and runs of repeated text:
// signs that a model's output is not prose (a summary that would erase a thread, or a local
// server whose chat template does not match its model).

/// Finds chat-template control markers in model text, without regular expressions.
public enum TemplateMarkers {
    /// Markers that are not of the `<|…|>` shape.
    static let named = ["<start_of_turn>", "<end_of_turn>", "[INST]", "[/INST]", "<<SYS>>", "<</SYS>>", "<s>", "</s>",
                        "<bos>", "<eos>", "<think>", "</think>"]
    /// Role names a template prints right after a marker (`<|im_start|>user`).
    static let roles = ["user", "assistant", "system", "model", "tool"]

    /// The markers found, each as (range of UTF-8 offsets including a role name right after it).
    static func spans(in text: String) -> [Range<Int>] {
        let b = Array(text.utf8)
        var out: [Range<Int>] = []
        var i = 0
        while i < b.count {
            var end: Int?
            if b[i] == UInt8(ascii: "<"), i + 1 < b.count, b[i + 1] == UInt8(ascii: "|") {
                // `<|name|>`: a short run without spaces closed by `|>`.
                var j = i + 2
                while j + 1 < b.count, j - i < 40, b[j] != UInt8(ascii: " "), b[j] != UInt8(ascii: "\n") {
                    if b[j] == UInt8(ascii: "|") && b[j + 1] == UInt8(ascii: ">") { end = j + 2; break }
                    j += 1
                }
            } else if b[i] == UInt8(ascii: "<") || b[i] == UInt8(ascii: "[") {
                for m in named where b.count - i >= m.utf8.count && b[i..<(i + m.utf8.count)].elementsEqual(m.utf8) {
                    end = i + m.utf8.count
                    break
                }
            }
            guard var e = end else { i += 1; continue }
            for r in roles where b.count - e >= r.utf8.count && b[e..<(e + r.utf8.count)].elementsEqual(r.utf8) {
                e += r.utf8.count
                break
            }
            out.append(i..<e)
            i = e
        }
        return out
    }

    /// How many markers `text` contains.
    public static func count(in text: String) -> Int { spans(in: text).count }

    /// The first marker found, for a message ("<|im_start|>").
    public static func first(in text: String) -> String? {
        guard let s = spans(in: text).first else { return nil }
        let b = Array(text.utf8)
        return String(decoding: b[s], as: UTF8.self)
    }

    /// The share of the text's non-space bytes that are markers (with their role names).
    public static func markupFraction(of text: String) -> Double {
        let content = text.utf8.filter { $0 != 32 && $0 != 10 && $0 != 13 && $0 != 9 }.count
        guard content > 0 else { return 0 }
        let markup = spans(in: text).reduce(0) { $0 + $1.count }
        return Double(markup) / Double(content)
    }
}

/// Detects text that repeats itself (a model stuck in a loop).
public enum Repetition {
    /// True when most of `text` is the same words or lines again: fewer than half of its word
    /// 5-grams (at least 30 words) or of its lines (at least 6) are distinct, or the text is a
    /// short pattern (up to 200 characters) repeated for nearly all of its length.
    public static func isRepetitive(_ text: String) -> Bool {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
        if words.count >= 30 {
            var grams = Set<String>()
            let total = words.count - 4
            for i in 0..<total { grams.insert(words[i..<(i + 5)].joined(separator: " ")) }
            if grams.count * 2 < total { return true }
        }
        let lines = text.split(separator: "\n").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        if lines.count >= 6 && Set(lines).count * 2 < lines.count { return true }
        return periodic(Array(text.utf8))
    }

    /// A pattern of 1–200 bytes repeated over at least 90% of a text of 240 bytes or more.
    static func periodic(_ b: [UInt8]) -> Bool {
        guard b.count >= 240 else { return false }
        for p in 1...min(200, b.count / 4) {
            var same = 0
            for i in 0..<(b.count - p) where b[i] == b[i + p] { same += 1 }
            if same * 10 >= (b.count - p) * 9 { return true }
        }
        return false
    }
}
