// Turns for the wires whose roles must alternate (Anthropic's messages, Gemini's contents): blocks
// for the role of the turn before join that turn, and a turn with no blocks is left out.
import Base

struct AlternatingTurns {
    private(set) var turns: [(role: String, blocks: [JSONValue])] = []

    mutating func append(_ role: String, _ blocks: [JSONValue]) {
        guard !blocks.isEmpty else { return }
        if let last = turns.last, last.role == role {
            turns[turns.count - 1].blocks += blocks // roles must alternate; merge neighbours
        } else {
            turns.append((role, blocks))
        }
    }

    /// The turns as wire objects: `{"role": …, blocksKey: […]}` ("content" for Anthropic, "parts" for Gemini).
    func json(blocksKey: String) -> [JSONValue] {
        turns.map { .object(["role": .string($0.role), blocksKey: .array($0.blocks)]) }
    }
}
