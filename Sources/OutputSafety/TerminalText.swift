// The one sanitiser for text from outside (model output, provider errors, sink rows, food names)
// on its way to a terminal: no escape sequence, control character or bidi override gets through.

/// Makes untrusted text safe to print. Removes C0 and C1 control characters (except newline and
/// tab where they are layout), whole escape sequences (CSI such as colours and screen clears, OSC
/// such as window titles, hyperlinks and OSC 52 clipboard writes, DCS/SOS/PM/APC strings, and
/// two-character ESC sequences), in their 7-bit (ESC …) and 8-bit (U+0080–U+009F) forms, and
/// the bidi overrides and isolates U+202A–U+202E and U+2066–U+2069. Everything else, including
/// emoji, CJK, combining marks and RTL letters, passes unchanged.
///
/// ofj's own styling (`Style`) is added after sanitising, so it is never affected.
public enum TerminalText {
    /// Sanitises a complete piece of text.
    /// - Parameters:
    ///   - keepNewlines: true for multi-line text (newline and tab are kept); false for one line
    ///     (newline and tab become a space, so a name cannot break the layout).
    public static func sanitize(_ text: String, keepNewlines: Bool = true) -> String {
        var filter = StreamFilter(keepNewlines: keepNewlines)
        return filter.feed(text)
    }

    /// Sanitises a stream that arrives in pieces: an escape sequence split across pieces is still
    /// removed whole. O(piece) per call; the only state is where in a sequence the last piece
    /// ended. Call `reset()` where the stream ends (an unterminated sequence then stops there
    /// instead of swallowing what follows).
    public struct StreamFilter: Sendable {
        enum State: Sendable {
            case ground
            /// After ESC.
            case escape
            /// After ESC and one or more intermediate bytes (0x20–0x2F), e.g. `ESC ( B`.
            case escapeIntermediate
            /// Inside a control sequence (`ESC [` or U+009B) until its final byte.
            case csi
            /// Inside a control string (OSC, DCS, SOS, PM, APC) until BEL or ST.
            case string
            /// ESC seen inside a control string: `\` ends it (ST), anything else starts a new sequence.
            case stringEscape
        }

        public let keepNewlines: Bool
        private var state = State.ground

        public init(keepNewlines: Bool = true) {
            self.keepNewlines = keepNewlines
        }

        /// True when the last piece ended inside an escape sequence.
        public var isInsideSequence: Bool {
            if case .ground = state { return false }
            return true
        }

        /// Forgets a sequence left open by the previous piece.
        public mutating func reset() { state = .ground }

        /// The safe part of `chunk`, given what came before it.
        public mutating func feed(_ chunk: String) -> String {
            var out = String.UnicodeScalarView()
            for scalar in chunk.unicodeScalars {
                step(scalar, into: &out)
            }
            return String(out)
        }

        private mutating func step(_ s: Unicode.Scalar, into out: inout String.UnicodeScalarView) {
            let v = s.value
            switch state {
            case .ground:
                ground(s, into: &out)
            case .escape:
                switch v {
                case 0x5B: state = .csi                                  // [
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: state = .string       // ] P X ^ _
                case 0x20...0x2F: state = .escapeIntermediate
                case 0x30...0x7E: state = .ground                        // ESC c, ESC 7, ESC = …
                case 0x1B: state = .escape
                case 0x18, 0x1A: state = .ground                         // CAN, SUB cancel
                default:
                    // Not a sequence (ESC before non-ASCII text or a control): drop only the ESC.
                    state = .ground
                    ground(s, into: &out)
                }
            case .escapeIntermediate:
                switch v {
                case 0x20...0x2F: break
                case 0x30...0x7E: state = .ground
                case 0x1B: state = .escape
                default:
                    state = .ground
                    ground(s, into: &out)
                }
            case .csi:
                switch v {
                case 0x40...0x7E: state = .ground                        // final byte
                case 0x20...0x3F: break                                  // parameters, intermediates
                case 0x1B: state = .escape
                case 0x18, 0x1A: state = .ground
                case 0x00...0x1F, 0x7F: break                            // controls inside are dropped
                default:
                    // Text cannot continue a sequence: end it and keep the text.
                    state = .ground
                    ground(s, into: &out)
                }
            case .string:
                switch v {
                case 0x07, 0x9C, 0x18, 0x1A: state = .ground            // BEL, ST, CAN, SUB
                case 0x1B: state = .stringEscape
                default: break                                           // the string's content is dropped
                }
            case .stringEscape:
                if v == 0x5C {                                           // ESC \ = ST
                    state = .ground
                } else {
                    state = .escape
                    step(s, into: &out)
                }
            }
        }

        private mutating func ground(_ s: Unicode.Scalar, into out: inout String.UnicodeScalarView) {
            switch s.value {
            case 0x0A, 0x09:
                out.append(keepNewlines ? s : " ")
            case 0x1B: state = .escape
            case 0x9B: state = .csi
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F: state = .string          // DCS, SOS, OSC, PM, APC
            case 0x00...0x1F, 0x7F...0x9F: break                         // other C0, DEL, other C1
            case 0x202A...0x202E, 0x2066...0x2069: break                 // bidi embeddings, overrides, isolates
            default: out.append(s)
            }
        }
    }

    /// Makes serialised JSON safe to print without changing what it decodes to: DEL, C1 controls,
    /// bidi overrides/isolates and U+2028/U+2029 are written as `\uXXXX` escapes. (Encoders already
    /// escape C0 controls, and the whitespace between tokens is ASCII, so these scalars can only
    /// occur inside JSON strings.)
    public static func escapingJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: needsJSONEscape) else { return json }
        var out = String.UnicodeScalarView()
        for s in json.unicodeScalars {
            if needsJSONEscape(s) {
                let hex = String(s.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(s)
            }
        }
        return String(out)
    }

    private static func needsJSONEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }
}
