// A sign of life on a terminal: a spinner with the seconds elapsed and "Ctrl-C to stop" while
// the model has not answered yet, and after a tool's activity line while the tool runs.
import Agent
import Synchronization
import Views

/// One line redrawn in place (`\r`, erase line) until it ends. Thread-safe: a ticker task redraws
/// it; the session ends it before writing anything else, under the same lock, so the two never
/// interleave. Disabled (draws nothing) when piped or in plain mode.
final class LiveLine: Sendable {
    private struct State {
        var active = false
        /// Kept when the line ends (a tool's activity line); empty for "waiting for the model".
        var base = ""
        var label = ""
        var startedAt = 0.0
        var frame = 0
    }
    private let state = Mutex(State())
    let output: any Output
    let clock: any AgentClock
    let style: Style
    let enabled: Bool
    /// Columns available (the line must not wrap, or `\r` would not reach its start).
    let width: @Sendable () -> Int

    static let frames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    init(output: any Output, clock: any AgentClock, style: Style, enabled: Bool, width: @escaping @Sendable () -> Int) {
        self.output = output
        self.clock = clock
        self.style = style
        self.enabled = enabled
        self.width = width
    }

    /// Starts showing `label` (after `base`, which stays when the line ends with `keep`).
    func start(base: String = "", label: String) {
        guard enabled else { return }
        state.withLock { s in
            s.active = true
            s.base = base
            s.label = label
            s.startedAt = clock.monotonic()
            s.frame = 0
            output.write(render(s))
        }
    }

    /// Redraws with the next frame (called by the ticker).
    func tick() {
        state.withLock { s in
            guard s.active else { return }
            s.frame += 1
            output.write(render(s))
        }
    }

    /// Ends the line: clears it, then writes its base with a newline when there is one.
    func end() {
        guard enabled else { return }
        state.withLock { s in
            guard s.active else { return }
            s.active = false
            output.write("\r\u{1B}[2K" + (s.base.isEmpty ? "" : s.base + "\n"))
        }
    }

    var isActive: Bool { state.withLock { $0.active } }

    private func render(_ s: State) -> String {
        let seconds = Int(max(0, clock.monotonic() - s.startedAt))
        let frame = Self.frames[s.frame % Self.frames.count]
        let tail = "\(frame) \(s.label)\(s.label.isEmpty ? "" : " · ")\(seconds)s · Ctrl-C to stop"
        // Cut the visible text so the line never wraps (the base may hold colour codes: cut its plain form).
        let room = max(10, width() - 1)
        var line = s.base.isEmpty ? "" : s.base + " "
        let visible = TerminalTextWidth.columns(stripStyle(line)) + TerminalTextWidth.columns(tail)
        if visible > room {
            let plain = stripStyle(s.base)
            let keep = max(0, room - TerminalTextWidth.columns(tail) - 2)
            line = plain.isEmpty ? "" : style.dim(String(plain.prefix(keep)) + "…") + " "
        }
        return "\r\u{1B}[2K" + line + style.dim(tail)
    }

    private func stripStyle(_ s: String) -> String {
        s.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }
}

/// Terminal columns of text (wide CJK and emoji count 2, combining marks 0).
enum TerminalTextWidth {
    static func columns(_ text: String) -> Int { text.reduce(0) { $0 + columns($1) } }

    static func columns(_ c: Character) -> Int {
        guard let first = c.unicodeScalars.first else { return 0 }
        let v = first.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark { return 0 }
        if v == 0x200B || v == 0x200D || (v >= 0xFE00 && v <= 0xFE0F) { return 0 }
        if c.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}
